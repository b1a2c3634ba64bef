import type { UnitOfWork } from "@docex/kit/db";
import { ConflictError, ValidationError } from "@docex/kit/errors";
import { generateSecret, generateURI, verify } from "otplib";
import type { SessionStore } from "../store/session-store.js";
import type { UserStore } from "../store/user-store.js";
import { authErrors } from "./auth-errors.js";
import { addSeconds, type Clock, epochSeconds } from "./clock.js";
import { type CredentialChecks, uncountedChecks } from "./credential-checks.js";
import type { RequestContext } from "./request-context.js";
import { randomToken, type SealingKey, tokenDigest } from "./secrets.js";
import { Throttle, type ThrottleAttempt } from "./throttle.js";
import type { User } from "./users.js";

export const TRUSTED_SOURCE_TTL_SECONDS = 30 * 24 * 3600;
const TOTP_PERIOD_SECONDS = 30;

/** What a client sent besides its first factor: `x-totp` and `x-otp-trusted-source`. */
export interface SecondFactorProof {
  totp?: string | undefined;
  trustedSource?: string | undefined;
}

export type SecondFactorCheck = "not_required" | "trusted_source" | "totp";
/** A check that did not pass: no code was sent (not a guess), or a wrong one (a guess). */
export type SecondFactorOutcome = SecondFactorCheck | "code_missing" | "code_wrong";

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
    private readonly sql: UnitOfWork,
    private readonly users: UserStore,
    private readonly sessions: SessionStore,
    private readonly sealing: SealingKey,
    private readonly throttle: Throttle,
    private readonly clock: Clock,
    private readonly issuerName: string,
    private readonly checks: CredentialChecks = uncountedChecks,
  ) {}

  /**
   * The second factor of a login that passed its first: not needed, a trusted source of this user, a fresh
   * code, or neither (`code_missing` / `code_wrong`, which the caller answers with 401 totp_required). The
   * caller has reserved the attempt with the throttle before checking the first factor.
   */
  async check(user: User, proof: SecondFactorProof): Promise<SecondFactorOutcome> {
    if (!user.totpEnabled || !user.totpSecret) return "not_required";
    if (proof.trustedSource && (await this.sessions.isTrustedSource(tokenDigest(proof.trustedSource), user.id, this.clock.now()))) {
      return "trusted_source";
    }
    if (proof.totp === undefined) return "code_missing";
    return (await this.acceptCode(user.id, user.totpSecret, proof.totp)) ? "totp" : "code_wrong";
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
    if (user.totpEnabled) throw new ConflictError("Two-factor authentication is already on.", "totp_already_enabled");
    if (!user.totpPendingSecret) throw new ConflictError("Start with POST /auth/totp to get a secret first.", "totp_not_started");
    const attempt = await this.reserve(user, ctx);
    const step = await this.matchingStep(user.id, user.totpPendingSecret, code);
    if (step === undefined) {
      throw new ValidationError("The code does not match the secret.", [{ path: "code", message: "Invalid code" }], "invalid_totp_code");
    }
    await attempt.succeeded();
    const enabled = await this.sql.transaction((tx) => this.users.enableTotp(tx, user.id, user.totpPendingSecret!, step, this.clock.now()));
    if (!enabled) throw new ConflictError("The setup changed meanwhile; start again with POST /auth/totp.", "totp_not_started");
  }

  /**
   * Turns TOTP off and revokes the user's trusted sources. It takes a second factor too, so that a
   * stolen access token alone cannot remove it: a token from a login with a code, or a current code.
   */
  async disable(user: User, callerAmr: string[], ctx: RequestContext): Promise<void> {
    if (user.totpEnabled && user.totpSecret && !callerAmr.includes("otp")) {
      const proof = ctx.proof ?? {};
      if (proof.totp === undefined) throw authErrors.totpRequired();
      const attempt = await this.reserve(user, ctx);
      if (!(await this.acceptCode(user.id, user.totpSecret, proof.totp))) throw authErrors.totpRequired();
      await attempt.succeeded();
    }
    await this.sql.transaction(async (tx) => {
      await this.users.disableTotp(tx, user.id, this.clock.now());
      await this.sessions.revokeTrustedSourcesOf(tx, user.id);
    });
  }

  /** Counts a code try before it is checked, like a login's; 429 when blocked. */
  private reserve(user: User, ctx: RequestContext): Promise<ThrottleAttempt> {
    return this.throttle.reserve(Throttle.loginKeys(user.email, ctx.clientAddress));
  }

  /** A code of the active secret, in a time step later than any this user used before. */
  private async acceptCode(userId: string, sealedSecret: string, code: string): Promise<boolean> {
    const step = await this.matchingStep(userId, sealedSecret, code);
    return step !== undefined && (await this.users.claimTotpStep(userId, step));
  }

  private async matchingStep(userId: string, sealedSecret: string, code: string): Promise<number | undefined> {
    if (!/^\d{6}$/.test(code)) return undefined;
    this.checks.checked("totp");
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
