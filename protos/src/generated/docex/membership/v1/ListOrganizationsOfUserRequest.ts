// Original file: membership.proto


export interface ListOrganizationsOfUserRequestInput {
  'user_id'?: (string);
  /**
   * Also the organizations where the user's membership is deactivated (never where an invitation is pending): the
   * audit service files a user's login attempts in each of them.
   */
  'include_deactivated'?: (boolean);
  '_include_deactivated'?: "include_deactivated";
}

export interface ListOrganizationsOfUserRequest {
  'user_id': (string);
  /**
   * Also the organizations where the user's membership is deactivated (never where an invitation is pending): the
   * audit service files a user's login attempts in each of them.
   */
  'include_deactivated'?: (boolean);
  '_include_deactivated'?: "include_deactivated";
}
