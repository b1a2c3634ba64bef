// Original file: membership.proto


export interface OrganizationInput {
  'id'?: (string);
  'humanized_id'?: (string);
  'name'?: (string);
  /**
   * ISO 8601.
   */
  'created_at'?: (string);
}

export interface Organization {
  'id': (string);
  'humanized_id': (string);
  'name': (string);
  /**
   * ISO 8601.
   */
  'created_at': (string);
}
