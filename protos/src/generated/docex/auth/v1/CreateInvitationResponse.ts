// Original file: auth.proto


export interface CreateInvitationResponseInput {
  'user_id'?: (string);
  /**
   * True when this call created the user. Callers must not show it (nor anything else of the user) to clients.
   */
  'created'?: (boolean);
}

export interface CreateInvitationResponse {
  'user_id': (string);
  /**
   * True when this call created the user. Callers must not show it (nor anything else of the user) to clients.
   */
  'created': (boolean);
}
