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
  /**
   * ISO 8601: when the invitation (and so its token) expires; membership decides. Empty: 7 days from now.
   */
  'expires_at'?: (string);
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
  /**
   * ISO 8601: when the invitation (and so its token) expires; membership decides. Empty: 7 days from now.
   */
  'expires_at': (string);
}
