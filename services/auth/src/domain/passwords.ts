import { randomBytes } from "node:crypto";
import argon2 from "argon2";
import { type CredentialChecks, uncountedChecks } from "./credential-checks.js";

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 128;

/** OWASP's argon2id baseline: 19 MiB, two passes, one lane. */
export const ARGON2_PARAMETERS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Password length counts characters (code points), not UTF-16 units or bytes. */
export function passwordLength(password: string): number {
  return Array.from(password).length;
}

/**
 * argon2id hashing. Checking a password of a user who has none (unknown email, invited user) still
 * runs one verification against a dummy hash, so the answer takes as long as for a wrong password.
 */
export class PasswordHasher {
  private constructor(
    private readonly dummyHash: string,
    private readonly checks: CredentialChecks,
  ) {}

  static async create(checks: CredentialChecks = uncountedChecks): Promise<PasswordHasher> {
    return new PasswordHasher(await argon2.hash(randomBytes(32).toString("base64url"), ARGON2_PARAMETERS), checks);
  }

  hash(password: string): Promise<string> {
    return argon2.hash(password, ARGON2_PARAMETERS);
  }

  /** True only when `hash` is set and matches; with no hash it burns the same time and answers false. */
  async verify(hash: string | null, password: string): Promise<boolean> {
    this.checks.checked("password");
    try {
      const matches = await argon2.verify(hash ?? this.dummyHash, password);
      return hash !== null && matches;
    } catch {
      return false;
    }
  }

  /** A hash made with older parameters is replaced at the next successful login. */
  needsRehash(hash: string): boolean {
    return argon2.needsRehash(hash, ARGON2_PARAMETERS);
  }
}
