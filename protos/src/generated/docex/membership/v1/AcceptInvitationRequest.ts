// Original file: membership.proto


export interface AcceptInvitationRequestInput {
  'organization_id'?: (string);
  'user_id'?: (string);
  /**
   * What auth knows of the user, kept as the member's profile once they have accepted.
   */
  'email'?: (string);
  /**
   * Empty when the user has not given one.
   */
  'name'?: (string);
}

export interface AcceptInvitationRequest {
  'organization_id': (string);
  'user_id': (string);
  /**
   * What auth knows of the user, kept as the member's profile once they have accepted.
   */
  'email': (string);
  /**
   * Empty when the user has not given one.
   */
  'name': (string);
}
