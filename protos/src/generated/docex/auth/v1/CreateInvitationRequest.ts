// Original file: auth.proto


export interface CreateInvitationRequestInput {
  'email'?: (string);
  'organization_id'?: (string);
  /**
   * Id of the user who invites; named in the mail.
   */
  'invited_by'?: (string);
  /**
   * UI locale of the mail: "cs_CZ" | "en_GB" | "cs" | "en"; empty for the default.
   */
  'locale'?: (string);
  /**
   * Shown in the mail; auth does not own organizations, so the caller supplies it. May be empty.
   */
  'organization_name'?: (string);
}

export interface CreateInvitationRequest {
  'email': (string);
  'organization_id': (string);
  /**
   * Id of the user who invites; named in the mail.
   */
  'invited_by': (string);
  /**
   * UI locale of the mail: "cs_CZ" | "en_GB" | "cs" | "en"; empty for the default.
   */
  'locale': (string);
  /**
   * Shown in the mail; auth does not own organizations, so the caller supplies it. May be empty.
   */
  'organization_name': (string);
}
