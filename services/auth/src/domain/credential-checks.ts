/** What a credential check verified: an argon2id password hash or a TOTP code. */
export type CredentialKind = "password" | "totp";

/**
 * Told of every credential actually verified (not of attempts the throttle refused first), so that operators
 * and tests can see how many guesses got through: `auth_credential_checks_total{kind}` in /metrics.
 */
export interface CredentialChecks {
  checked(kind: CredentialKind): void;
}

export const uncountedChecks: CredentialChecks = { checked: () => undefined };
