// Original file: membership.proto


export interface CheckPermissionResponseInput {
  'allowed'?: (boolean);
  /**
   * False when the user has no membership (or a deactivated one): callers answer 404, not 403.
   */
  'is_member'?: (boolean);
  /**
   * Empty when not a member.
   */
  'role'?: (string);
}

export interface CheckPermissionResponse {
  'allowed': (boolean);
  /**
   * False when the user has no membership (or a deactivated one): callers answer 404, not 403.
   */
  'is_member': (boolean);
  /**
   * Empty when not a member.
   */
  'role': (string);
}
