// Original file: membership.proto


export interface GetRolesRequestInput {
  'user_id'?: (string);
  /**
   * UUID, not a humanized id.
   */
  'organization_id'?: (string);
}

export interface GetRolesRequest {
  'user_id': (string);
  /**
   * UUID, not a humanized id.
   */
  'organization_id': (string);
}
