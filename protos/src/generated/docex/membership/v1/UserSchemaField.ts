// Original file: membership.proto


export interface UserSchemaFieldInput {
  'key'?: (string);
  'hidden'?: (boolean);
  'readonly'?: (boolean);
}

export interface UserSchemaField {
  'key': (string);
  'hidden': (boolean);
  'readonly': (boolean);
}
