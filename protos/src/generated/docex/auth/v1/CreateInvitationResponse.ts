// Original file: auth.proto


export interface CreateInvitationResponseInput {
  'user_id'?: (string);
  /**
   * True when this call created the user.
   */
  'created'?: (boolean);
}

export interface CreateInvitationResponse {
  'user_id': (string);
  /**
   * True when this call created the user.
   */
  'created': (boolean);
}
