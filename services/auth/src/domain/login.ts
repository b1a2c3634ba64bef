import type { Tx, UnitOfWork } from "@docex/kit/db";
import type { UsedIdTokenStore } from "../store/used-id-token-store.js";
import type { UserStore } from "../store/user-store.js";
import { authErrors } from "./auth-errors.js";
import type { LoginAttempt, LoginAttempts, LoginMethod } from "./login-attempts.js";
import type { OneTimeSecrets } from "./one-time-secrets.js";
import type { PasswordHasher } from "./passwords.js";
import type { RequestContext } from "./request-context.js";
import type { IssuedTokens, Sessions } from "./sessions.js";
import type { SocialIdentityVerifier } from "./social-identity.js";
import { Throttle, type ThrottleAttempt, type ThrottleKey } from "./throttle.js";
import type { TwoFactor } from "./two-factor.js";
import { normalizeEmail, type User } from "./users.js";

/**
 * The ways to log in: password, magic token, social id_token. Each checks its first factor, then
 * TOTP when the user has it on, then opens a session. Each attempt is counted against the account from
 * this client's network, the account's total and the network before its credential is checked, and given
 * back when it succeeds; a blocked one answers 429 before any password is looked at. Every attempt that gets
 * as far as its credential is published for the audit log.
 */
export class Login {
  constructor(
    private readonly sql: UnitOfWork,
    private readonly users: UserStore,
    private readonly hasher: PasswordHasher,
    private readonly secrets: OneTimeSecrets,
    private readonly twoFactor: TwoFactor,
    private readonly sessions: Sessions,
    private readonly socialIdentity: SocialIdentityVerifier,
    private readonly throttle: Throttle,
    private readonly attempts: LoginAttempts,
    private readonly usedIdTokens: UsedIdTokenStore,
  ) {}

  async withPassword(emailGiven: string, password: string, ctx: RequestContext): Promise<IssuedTokens> {
    const email = normalizeEmail(emailGiven);
    // Counted before the password is verified, so that parallel guesses cannot outrun the count.
    const reserved = await this.throttle.reserve(Throttle.loginKeys(email, ctx.clientAddress));
    const user = await this.users.findByEmail(email);
    const attempt = { userId: user?.id ?? null, email, method: "pwd" } as const;
    return this.attempts.refusalsOf(
      () => attempt,
      ctx,
      async () => {
        const hash = user?.status === "active" ? user.passwordHash : null;
        // verify() runs even without a user or hash, so an unknown email takes as long as a wrong password.
        const matches = await this.hasher.verify(hash, password);
        if (!user || !matches) throw authErrors.invalidCredentials();
        if (hash && this.hasher.needsRehash(hash)) await this.users.rehashPassword(user.id, hash, await this.hasher.hash(password));
        return this.complete(user, "pwd", ctx, reserved);
      },
    );
  }

  /**
   * A recovery path: it stays open while password logins of the account are locked. An unknown token
   * counts against the client address (recovery scope); a second factor after a valid one against the
   * account's and the address's recovery counters, which only the holder of a mailed token can move.
   */
  async withMagicToken(token: string, ctx: RequestContext): Promise<IssuedTokens> {
    const address = Throttle.key("recovery_address", ctx.clientAddress);
    await this.throttle.assertAllowed([address]);
    let attempt: LoginAttempt = { userId: null, email: "", method: "magic" };
    return this.attempts.refusalsOf(
      () => attempt,
      ctx,
      async () => {
        const secret = await this.secrets.find(token, ["magic_login"]);
        const user = secret && (await this.users.findById(secret.userId));
        if (user) attempt = { userId: user.id, email: user.email, method: "magic" };
        if (!secret || user?.status !== "active") {
          // Counted after the fact: a 256-bit token cannot be guessed, however many tries run in parallel.
          await this.throttle.recordFailure([address]);
          throw authErrors.invalidToken();
        }
        const reserved = await this.throttle.reserve(Throttle.recoveryKeys(user.email, ctx.clientAddress));
        return this.complete(user, "magic", ctx, reserved, async (tx) => {
          if (!(await this.secrets.consume(tx, secret))) throw authErrors.invalidToken();
        });
      },
    );
  }

  /**
   * Logs in an existing, active user whose issuer vouches for the email, with an id_token used once only and bound
   * to this client's flow by `nonce` when it sends one (fresh otherwise). A refused id_token counts like a wrong password.
   */
  async withSocialIdToken(emailGiven: string, idToken: string, nonce: string | undefined, ctx: RequestContext): Promise<IssuedTokens> {
    const email = normalizeEmail(emailGiven);
    const reserved = await this.throttle.reserve(Throttle.loginKeys(email, ctx.clientAddress));
    let attempt: LoginAttempt = { userId: null, email, method: "social" };
    return this.attempts.refusalsOf(
      () => attempt,
      ctx,
      async () => {
        const verified = await this.socialIdentity.verify(idToken, email, nonce);
        if (await this.usedIdTokens.isUsed(verified.digest)) throw authErrors.invalidIdToken("it has been used already");
        const user = await this.users.findByEmail(email);
        if (user) attempt = { ...attempt, userId: user.id };
        if (user?.status !== "active") throw authErrors.invalidIdToken("no active account uses this email; register first");
        return this.complete(user, "social", ctx, reserved, async (tx) => {
          // Used up with the session it opens; without a needed TOTP code it stays usable for the retry.
          if (!(await this.usedIdTokens.use(tx, verified.digest, verified.usedAt, verified.expiresAt))) {
            throw authErrors.invalidIdToken("it has been used already");
          }
        });
      },
    );
  }

  /**
   * The common tail: second factor, then a session (with `within` run in the same transaction, e.g.
   * using up the magic token), and a trusted source when a TOTP code was given. `reserved` is the
   * attempt the caller counted before checking the first factor (or the keys to count it against now);
   * it is given back when the login succeeds or stops only for want of a TOTP code.
   */
  async complete(
    user: User,
    method: LoginMethod,
    ctx: RequestContext,
    reserved: ThrottleAttempt | ThrottleKey[],
    within?: (tx: Tx) => Promise<void>,
  ): Promise<IssuedTokens> {
    const throttled = Array.isArray(reserved) ? await this.throttle.reserve(reserved) : reserved;
    const attempt = { userId: user.id, email: user.email, method };
    const factor = await this.attempts.refusalsOf(
      () => attempt,
      ctx,
      async () => {
        const outcome = await this.twoFactor.check(user, ctx.proof ?? {});
        if (outcome === "code_missing") {
          await throttled.refund();
          throw authErrors.totpRequired();
        }
        if (outcome === "code_wrong") throw authErrors.totpRequired();
        return outcome;
      },
    );
    const amr = factor === "totp" ? [method, "otp"] : [method];
    const tokens = await this.sql.transaction(async (tx) => {
      await within?.(tx);
      const issued = await this.sessions.start(tx, user, amr);
      await this.attempts.succeededIn(tx, attempt, ctx);
      return issued;
    });
    if (factor === "totp") tokens.otpTrustedSource = await this.twoFactor.issueTrustedSource(user.id);
    await throttled.succeeded();
    return tokens;
  }
}
