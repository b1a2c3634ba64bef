// Original file: auth.proto


export interface UserInput {
  'id'?: (string);
  /**
   * Lowercased.
   */
  'email'?: (string);
  /**
   * Empty when the user has not given one.
   */
  'name'?: (string);
  /**
   * "active" | "invited" (no password set yet) | "deactivated".
   */
  'status'?: (string);
  'totp_enabled'?: (boolean);
  /**
   * ISO 8601.
   */
  'created_at'?: (string);
}

export interface User {
  'id': (string);
  /**
   * Lowercased.
   */
  'email': (string);
  /**
   * Empty when the user has not given one.
   */
  'name': (string);
  /**
   * "active" | "invited" (no password set yet) | "deactivated".
   */
  'status': (string);
  'totp_enabled': (boolean);
  /**
   * ISO 8601.
   */
  'created_at': (string);
}
