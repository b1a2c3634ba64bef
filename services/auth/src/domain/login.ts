import type { Sql, Tx } from "../store/sql.js";
import type { UserStore } from "../store/user-store.js";
import { authErrors } from "./auth-errors.js";
import type { LoginAttempt, LoginAttempts, LoginMethod } from "./login-attempts.js";
import type { OneTimeSecrets } from "./one-time-secrets.js";
import type { PasswordHasher } from "./passwords.js";
import type { RequestContext } from "./request-context.js";
import type { IssuedTokens, Sessions } from "./sessions.js";
import type { SocialIdentityVerifier } from "./social-identity.js";
import { Throttle, type ThrottleKey } from "./throttle.js";
import type { TwoFactor } from "./two-factor.js";
import { normalizeEmail, type User } from "./users.js";

/**
 * The ways to log in: password, magic token, social id_token. Each checks its first factor, then
 * TOTP when the user has it on, then opens a session. Failures count against the account and the
 * client address; a blocked one answers 429 before any password is looked at. Every attempt that gets
 * as far as its credential is published for the audit log.
 */
export class Login {
  constructor(
    private readonly sql: Sql,
    private readonly users: UserStore,
    private readonly hasher: PasswordHasher,
    private readonly secrets: OneTimeSecrets,
    private readonly twoFactor: TwoFactor,
    private readonly sessions: Sessions,
    private readonly socialIdentity: SocialIdentityVerifier,
    private readonly throttle: Throttle,
    private readonly attempts: LoginAttempts,
  ) {}

  async withPassword(emailGiven: string, password: string, ctx: RequestContext): Promise<IssuedTokens> {
    const email = normalizeEmail(emailGiven);
    const keys = [Throttle.key("account", email), Throttle.key("address", ctx.clientAddress)];
    await this.throttle.assertAllowed(keys);
    const user = await this.users.findByEmail(email);
    const attempt = { userId: user?.id ?? null, email, method: "pwd" } as const;
    return this.attempts.refusalsOf(
      () => attempt,
      ctx,
      async () => {
        const hash = user?.status === "active" ? user.passwordHash : null;
        // verify() runs even without a user or hash, so an unknown email takes as long as a wrong password.
        const matches = await this.hasher.verify(hash, password);
        if (!user || !matches) {
          await this.throttle.recordFailure(keys);
          throw authErrors.invalidCredentials();
        }
        if (hash && this.hasher.needsRehash(hash)) await this.users.rehashPassword(user.id, hash, await this.hasher.hash(password));
        return this.complete(user, "pwd", ctx, keys);
      },
    );
  }

  async withMagicToken(token: string, ctx: RequestContext): Promise<IssuedTokens> {
    const address = Throttle.key("address", ctx.clientAddress);
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
          await this.throttle.recordFailure([address]);
          throw authErrors.invalidToken();
        }
        const keys = [Throttle.key("account", user.email), address];
        await this.throttle.assertAllowed(keys);
        return this.complete(user, "magic", ctx, keys, async (tx) => {
          if (!(await this.secrets.consume(tx, secret))) throw authErrors.invalidToken();
        });
      },
    );
  }

  /** Logs in an existing, active user whose issuer vouches for the email. */
  async withSocialIdToken(emailGiven: string, idToken: string, ctx: RequestContext): Promise<IssuedTokens> {
    const email = normalizeEmail(emailGiven);
    const keys = [Throttle.key("account", email), Throttle.key("address", ctx.clientAddress)];
    await this.throttle.assertAllowed(keys);
    let attempt: LoginAttempt = { userId: null, email, method: "social" };
    return this.attempts.refusalsOf(
      () => attempt,
      ctx,
      async () => {
        try {
          await this.socialIdentity.verify(idToken, email);
        } catch (error) {
          await this.throttle.recordFailure([keys[1]!]);
          throw error;
        }
        const user = await this.users.findByEmail(email);
        if (user) attempt = { ...attempt, userId: user.id };
        if (user?.status !== "active") throw authErrors.invalidIdToken("no active account uses this email; register first");
        return this.complete(user, "social", ctx, keys);
      },
    );
  }

  /**
   * The common tail: second factor, then a session (with `within` run in the same transaction, e.g.
   * using up the magic token), and a trusted source when a TOTP code was given.
   */
  async complete(
    user: User,
    method: LoginMethod,
    ctx: RequestContext,
    keys: ThrottleKey[],
    within?: (tx: Tx) => Promise<void>,
  ): Promise<IssuedTokens> {
    const attempt = { userId: user.id, email: user.email, method };
    const factor = await this.attempts.refusalsOf(
      () => attempt,
      ctx,
      () => this.twoFactor.check(user, ctx.proof ?? {}, keys),
    );
    const amr = factor === "totp" ? [method, "otp"] : [method];
    const tokens = await this.sql.transaction(async (tx) => {
      await within?.(tx);
      const issued = await this.sessions.start(tx, user, amr);
      await this.attempts.succeededIn(tx, attempt, ctx);
      return issued;
    });
    if (factor === "totp") tokens.otpTrustedSource = await this.twoFactor.issueTrustedSource(user.id);
    const account = keys.find((key) => key.scope === "account");
    if (account) await this.throttle.recordSuccess(account);
    return tokens;
  }
}
