import { ConflictError, ValidationError } from "@docex/kit";
import { generateSecret, generateURI, verify } from "otplib";
import type { SessionStore } from "../store/session-store.js";
import type { Sql } from "../store/sql.js";
import type { UserStore } from "../store/user-store.js";
import { authErrors } from "./auth-errors.js";
import { addSeconds, type Clock, epochSeconds } from "./clock.js";
import type { RequestContext } from "./request-context.js";
import { randomToken, type SealingKey, tokenDigest } from "./secrets.js";
import { Throttle, type ThrottleKey } from "./throttle.js";
import type { User } from "./users.js";

export const TRUSTED_SOURCE_TTL_SECONDS = 30 * 24 * 3600;
const TOTP_PERIOD_SECONDS = 30;

/** What a client sent besides its first factor: `x-totp` and `x-otp-trusted-source`. */
export interface SecondFactorProof {
  totp?: string | undefined;
  trustedSource?: string | undefined;
}

export type SecondFactorCheck = "not_required" | "trusted_source" | "totp";

export interface TotpEnrollment {
  secret: string;
  otpauthUri: string;
}

/**
 * TOTP (RFC 6238: SHA-1, six digits, 30 s, one step of drift either way; each step accepted once
 * per user) and trusted sources, the opaque tokens that stand in for a code for 30 days.
 */
export class TwoFactor {
  constructor(
    private readonly sql: Sql,
    private readonly users: UserStore,
    private readonly sessions: SessionStore,
    private readonly sealing: SealingKey,
    private readonly throttle: Throttle,
    private readonly clock: Clock,
    private readonly issuerName: string,
  ) {}

  /**
   * The second factor of a login that passed its first. Throws 401 totp_required when TOTP is on and
   * neither a trusted source of this user nor a fresh code came; a wrong code counts as a failure.
   */
  async check(user: User, proof: SecondFactorProof, throttleKeys: ThrottleKey[]): Promise<SecondFactorCheck> {
    if (!user.totpEnabled || !user.totpSecret) return "not_required";
    if (proof.trustedSource && (await this.sessions.isTrustedSource(tokenDigest(proof.trustedSource), user.id, this.clock.now()))) {
      return "trusted_source";
    }
    if (proof.totp === undefined) throw authErrors.totpRequired();
    if (await this.acceptCode(user.id, user.totpSecret, proof.totp)) return "totp";
    await this.throttle.recordFailure(throttleKeys);
    throw authErrors.totpRequired();
  }

  async issueTrustedSource(userId: string): Promise<string> {
    const token = randomToken();
    const now = this.clock.now();
    await this.sessions.addTrustedSource(undefined, tokenDigest(token), userId, now, addSeconds(now, TRUSTED_SOURCE_TTL_SECONDS));
    return token;
  }

  /** Starts (or restarts) setting TOTP up: a new secret that counts once a code from it is confirmed. */
  async begin(user: User): Promise<TotpEnrollment> {
    if (user.totpEnabled) throw new ConflictError("Two-factor authentication is already on; turn it off first.", "totp_already_enabled");
    const secret = generateSecret();
    await this.users.setPendingTotp(user.id, this.sealing.seal(secret, totpContext(user.id)), this.clock.now());
    return { secret, otpauthUri: generateURI({ issuer: this.issuerName, label: user.email, secret }) };
  }

  async confirm(user: User, code: string, ctx: RequestContext): Promise<void> {
    const throttleKeys = await this.allowedKeys(user, ctx);
    if (user.totpEnabled) throw new ConflictError("Two-factor authentication is already on.", "totp_already_enabled");
    if (!user.totpPendingSecret) throw new ConflictError("Start with POST /auth/totp to get a secret first.", "totp_not_started");
    const step = await this.matchingStep(user.id, user.totpPendingSecret, code);
    if (step === undefined) {
      await this.throttle.recordFailure(throttleKeys);
      throw new ValidationError("The code does not match the secret.", [{ path: "code", message: "Invalid code" }], "invalid_totp_code");
    }
    const enabled = await this.sql.transaction((tx) => this.users.enableTotp(tx, user.id, user.totpPendingSecret!, step, this.clock.now()));
    if (!enabled) throw new ConflictError("The setup changed meanwhile; start again with POST /auth/totp.", "totp_not_started");
  }

  /**
   * Turns TOTP off and revokes the user's trusted sources. It takes a second factor too, so that a
   * stolen access token alone cannot remove it: a token from a login with a code, or a current code.
   */
  async disable(user: User, callerAmr: string[], ctx: RequestContext): Promise<void> {
    if (user.totpEnabled && user.totpSecret && !callerAmr.includes("otp")) {
      const throttleKeys = await this.allowedKeys(user, ctx);
      const proof = ctx.proof ?? {};
      if (proof.totp === undefined) throw authErrors.totpRequired();
      if (!(await this.acceptCode(user.id, user.totpSecret, proof.totp))) {
        await this.throttle.recordFailure(throttleKeys);
        throw authErrors.totpRequired();
      }
    }
    await this.sql.transaction(async (tx) => {
      await this.users.disableTotp(tx, user.id, this.clock.now());
      await this.sessions.revokeTrustedSourcesOf(tx, user.id);
    });
  }

  /** The keys code tries count against; 429 when they are blocked. */
  private async allowedKeys(user: User, ctx: RequestContext): Promise<ThrottleKey[]> {
    const keys = [Throttle.key("account", user.email), Throttle.key("address", ctx.clientAddress)];
    await this.throttle.assertAllowed(keys);
    return keys;
  }

  /** A code of the active secret, in a time step later than any this user used before. */
  private async acceptCode(userId: string, sealedSecret: string, code: string): Promise<boolean> {
    const step = await this.matchingStep(userId, sealedSecret, code);
    return step !== undefined && (await this.users.claimTotpStep(userId, step));
  }

  private async matchingStep(userId: string, sealedSecret: string, code: string): Promise<number | undefined> {
    if (!/^\d{6}$/.test(code)) return undefined;
    const result = await verify({
      secret: this.sealing.open(sealedSecret, totpContext(userId)),
      token: code,
      epoch: epochSeconds(this.clock.now()),
      epochTolerance: TOTP_PERIOD_SECONDS,
    });
    // The functional API's result also covers HOTP, which has no time step.
    return result.valid && "timeStep" in result ? result.timeStep : undefined;
  }
}

function totpContext(userId: string): string {
  return `totp:${userId}`;
}
