import type { SessionStore } from "../store/session-store.js";
import type { UserStore } from "../store/user-store.js";
import { authErrors } from "./auth-errors.js";
import type { Clock } from "./clock.js";
import type { Invitations } from "./invitations.js";
import type { Login } from "./login.js";
import type { SelfOnboarding } from "./onboarding.js";
import type { OneTimeSecret, OneTimeSecrets } from "./one-time-secrets.js";
import type { PasswordHasher } from "./passwords.js";
import type { RequestContext } from "./request-context.js";
import type { IssuedTokens, Sessions } from "./sessions.js";
import { Throttle } from "./throttle.js";
import type { User } from "./users.js";

/** PasswordChangeDto at the HTTP edge. */
export interface PasswordChangeToken {
  email: string;
  expiresAt: Date;
  purpose: "reset" | "invitation";
}

/**
 * Setting a password with a mailed reset token or an invitation token. It ends every session and
 * trusted source of the user, completes a pending self-registration (the first password), and logs
 * the user in. A user with TOTP on needs it here too: a mailbox alone must not get past it.
 *
 * An invitation token to an organization sets a password only while the user has none (it lives for days, so it
 * must not double as a reset token); setting it accepts the invitation (membership's AcceptInvitation) first. A
 * user who has a password accepts with accept-invitation instead.
 */
export class PasswordChange {
  constructor(
    private readonly users: UserStore,
    private readonly sessionStore: SessionStore,
    private readonly hasher: PasswordHasher,
    private readonly secrets: OneTimeSecrets,
    private readonly sessions: Sessions,
    private readonly onboarding: SelfOnboarding,
    private readonly login: Login,
    private readonly throttle: Throttle,
    private readonly clock: Clock,
    private readonly invitations: Invitations,
  ) {}

  /** What a token is for, without using it up. */
  async inspect(token: string, ctx: RequestContext): Promise<PasswordChangeToken> {
    const { secret, user } = await this.resolve(token, ctx);
    return { email: user.email, expiresAt: secret.expiresAt, purpose: secret.purpose === "invitation" ? "invitation" : "reset" };
  }

  async change(token: string, password: string, ctx: RequestContext): Promise<IssuedTokens> {
    const { secret, user } = await this.resolve(token, ctx);
    // A recovery path: counted on its own, so a locked password login leaves it open (only the mailbox's holder gets here).
    const reserved = await this.throttle.reserve(Throttle.recoveryKeys(user.email, ctx.clientAddress));
    const passwordHash = await this.hasher.hash(password);
    // Before the password: if membership is down the answer is 503 and the token stays usable. A withdrawn
    // invitation still lets the mailbox's owner set the password; they just join nothing.
    if (secret.organizationId) await this.invitations.acceptWith(secret, user, ctx);
    const tokens = await this.login.complete(user, secret.purpose === "invitation" ? "invite" : "pwd", ctx, reserved, async (tx) => {
      if (!(await this.secrets.consume(tx, secret))) throw authErrors.invalidToken();
      // A reset does not withdraw invitations to organizations: they are accepted with accept-invitation.
      if (secret.purpose === "invitation") await this.secrets.deleteOutstanding(tx, user.id, "password_reset");
      else await this.secrets.deleteOutstanding(tx, user.id, "invitation", null);
      await this.sessions.revokeAll(tx, user.id, "password_changed");
      await this.sessionStore.revokeTrustedSourcesOf(tx, user.id);
      await this.users.setPassword(tx, user.id, passwordHash, this.clock.now());
      await this.onboarding.completeIn(tx, user, ctx.requestId);
    });
    await this.onboarding.ensureOrganization(user, ctx.requestId);
    return tokens;
  }

  /** An unknown token counts against the client address after the fact: 256 random bits cannot be guessed anyway. */
  private async resolve(token: string, ctx: RequestContext): Promise<{ secret: OneTimeSecret; user: User }> {
    const address = Throttle.key("recovery_address", ctx.clientAddress);
    await this.throttle.assertAllowed([address]);
    const secret = await this.secrets.find(token, ["password_reset", "invitation"]);
    const user = secret && (await this.users.findById(secret.userId));
    const invitationOfUserWithPassword = secret?.organizationId && user?.status === "active";
    if (!secret || !user || user.status === "deactivated" || invitationOfUserWithPassword) {
      await this.throttle.recordFailure([address]);
      throw authErrors.invalidToken();
    }
    return { secret, user };
  }
}
