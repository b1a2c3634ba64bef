// Original file: register.proto


export interface LookupItemsRequestInput {
  /**
   * The register's UUID.
   */
  'register_id'?: (string);
  /**
   * Item values to look up, matched exactly.
   */
  'values'?: (string)[];
  'organization_id'?: (string);
}

export interface LookupItemsRequest {
  /**
   * The register's UUID.
   */
  'register_id': (string);
  /**
   * Item values to look up, matched exactly.
   */
  'values': (string)[];
  'organization_id': (string);
}
