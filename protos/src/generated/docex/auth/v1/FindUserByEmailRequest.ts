// Original file: auth.proto


export interface FindUserByEmailRequestInput {
  /**
   * Matched case-insensitively.
   */
  'email'?: (string);
}

export interface FindUserByEmailRequest {
  /**
   * Matched case-insensitively.
   */
  'email': (string);
}
