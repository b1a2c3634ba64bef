import { randomUUID } from "node:crypto";
import type { Tx } from "@docex/kit/db";
import type { SecretStore } from "../store/secret-store.js";
import { addSeconds, type Clock } from "./clock.js";
import { randomPin, randomToken, type SealingKey, sameDigest, tokenDigest } from "./secrets.js";

export type SecretPurpose = "magic_login" | "password_reset" | "invitation" | "onboarding_pin";
export type TokenPurpose = Exclude<SecretPurpose, "onboarding_pin">;

export interface OneTimeSecret {
  id: string;
  userId: string;
  purpose: SecretPurpose;
  digest: Buffer;
  attempts: number;
  expiresAt: Date;
  /** Of an invitation token to an organization; null otherwise (a self-registration's invitation token too). */
  organizationId: string | null;
}

export const TOKEN_TTL_SECONDS = 15 * 60;
/** An invitation to an organization without an expiry from membership; and the longest one accepted. */
export const INVITATION_TTL_SECONDS = 7 * 24 * 3600;
export const INVITATION_MAX_TTL_SECONDS = 365 * 24 * 3600;
export const PIN_TTL_SECONDS = 10 * 60;
export const PIN_MAX_ATTEMPTS = 5;

export type PinCheck = "accepted" | "rejected";

/**
 * Magic-login, password-reset and invitation tokens (256 random bits) and onboarding PINs (six digits),
 * kept as digests only. Each is single use and short-lived; using one clears the user's other
 * outstanding ones of the same purpose.
 */
export class OneTimeSecrets {
  constructor(
    private readonly store: SecretStore,
    private readonly sealing: SealingKey,
    private readonly clock: Clock,
  ) {}

  async issueToken(tx: Tx, userId: string, purpose: TokenPurpose): Promise<{ token: string; expiresAt: Date }> {
    const token = randomToken();
    const now = this.clock.now();
    const expiresAt = addSeconds(now, TOKEN_TTL_SECONDS);
    await this.store.insert(tx, { id: randomUUID(), userId, purpose, digest: tokenDigest(token), createdAt: now, expiresAt });
    return { token, expiresAt };
  }

  /**
   * An invitation token to an organization. It lives as long as the invitation (membership says until when:
   * `INVITATION_TTL_DAYS`, 7 days by default), not 15 minutes: an invitee reads the mail when they read it.
   * Outstanding invitation tokens of other organizations stay valid.
   */
  async issueInvitation(
    tx: Tx,
    userId: string,
    organizationId: string,
    until: Date | undefined,
  ): Promise<{ token: string; expiresAt: Date }> {
    const token = randomToken();
    const now = this.clock.now();
    const latest = addSeconds(now, INVITATION_MAX_TTL_SECONDS);
    const expiresAt = until && until > now ? (until < latest ? until : latest) : addSeconds(now, INVITATION_TTL_SECONDS);
    await this.store.insert(tx, {
      id: randomUUID(),
      userId,
      purpose: "invitation",
      digest: tokenDigest(token),
      createdAt: now,
      expiresAt,
      organizationId,
    });
    return { token, expiresAt };
  }

  /** A new PIN replaces any outstanding one, so its five tries cannot be multiplied by asking again. */
  async issuePin(tx: Tx, userId: string): Promise<{ pin: string; expiresAt: Date }> {
    const pin = randomPin();
    const now = this.clock.now();
    const expiresAt = addSeconds(now, PIN_TTL_SECONDS);
    await this.store.deleteAll(tx, userId, "onboarding_pin");
    await this.store.insert(tx, {
      id: randomUUID(),
      userId,
      purpose: "onboarding_pin",
      digest: this.sealing.pinDigest(userId, pin),
      createdAt: now,
      expiresAt,
    });
    return { pin, expiresAt };
  }

  /** The unexpired secret behind `token` when it has one of `purposes`; it stays usable. */
  find(token: string, purposes: TokenPurpose[], tx?: Tx): Promise<OneTimeSecret | undefined> {
    return this.store.findValid(tokenDigest(token), purposes, this.clock.now(), tx);
  }

  /** True when this call used the secret up; false when someone else did first. */
  async consume(tx: Tx, secret: OneTimeSecret): Promise<boolean> {
    return (await this.store.consume(tx, secret.id)) !== undefined;
  }

  /** `organizationId` limits invitation tokens to those of one organization (null: a self-registration's). */
  async deleteOutstanding(tx: Tx, userId: string, purpose: SecretPurpose, organizationId?: string | null): Promise<void> {
    await this.store.deleteAll(tx, userId, purpose, organizationId);
  }

  /** Checks a PIN; a right one is used up, a wrong one counts, and the fifth wrong one burns the PIN. */
  async checkPin(tx: Tx, userId: string, pin: string): Promise<PinCheck> {
    const outstanding = await this.store.findPinForUpdate(tx, userId, this.clock.now());
    if (!outstanding) return "rejected";
    if (sameDigest(outstanding.digest, this.sealing.pinDigest(userId, pin))) {
      await this.store.consume(tx, outstanding.id);
      return "accepted";
    }
    const attempts = await this.store.recordAttempt(tx, outstanding.id);
    if (attempts >= PIN_MAX_ATTEMPTS) await this.store.delete(tx, outstanding.id);
    return "rejected";
  }
}
