// Original file: membership.proto


export interface GetUserSchemaRequestInput {
  'user_id'?: (string);
  'organization_id'?: (string);
  /**
   * Empty for the organization-wide schema only.
   */
  'queue_id'?: (string);
}

export interface GetUserSchemaRequest {
  'user_id': (string);
  'organization_id': (string);
  /**
   * Empty for the organization-wide schema only.
   */
  'queue_id': (string);
}
