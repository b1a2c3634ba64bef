import type { UnitOfWork } from "@docex/kit/db";
import type { Logger } from "@docex/kit/logger";
import type { UserStore } from "../store/user-store.js";
import { authErrors } from "./auth-errors.js";
import type { MembershipOrganizations } from "./membership-organizations.js";
import type { OneTimeSecret, OneTimeSecrets } from "./one-time-secrets.js";
import type { RequestContext } from "./request-context.js";
import { Throttle } from "./throttle.js";
import type { User } from "./users.js";

/**
 * Invitations to organizations, from the invitee's side. The mailed token is the consent: whoever holds it (the
 * mailbox of the invited address) accepts with `POST /auth/accept-invitation`, which asks membership's
 * AcceptInvitation and then uses the token up. An invitee without a password accepts by setting one
 * (change-password with the token), which calls `acceptWith` before the password is set.
 */
export class Invitations {
  constructor(
    private readonly sql: UnitOfWork,
    private readonly users: UserStore,
    private readonly secrets: OneTimeSecrets,
    private readonly membership: MembershipOrganizations,
    private readonly throttle: Throttle,
    private readonly logger: Logger,
  ) {}

  /**
   * Accepts the invitation behind `token`. An unknown, expired, used or withdrawn invitation is one answer, 401
   * `invalid_token`; unknown tokens count against the client address like every mailed token. Membership is asked
   * first, so a membership that is down (503) leaves the token usable for a retry.
   */
  async accept(token: string, ctx: RequestContext): Promise<{ organizationId: string }> {
    // Counted like the other mailed tokens (reset, invitation on change-password): on the recovery budget of the address.
    const address = Throttle.key("recovery_address", ctx.clientAddress);
    await this.throttle.assertAllowed([address]);
    const secret = await this.secrets.find(token, ["invitation"]);
    const user = secret?.organizationId ? await this.users.findById(secret.userId) : undefined;
    if (!secret?.organizationId || !user || user.status === "deactivated") {
      await this.throttle.recordFailure([address]);
      throw authErrors.invalidToken();
    }
    const accepted = await this.acceptWith(secret, user, ctx);
    const used = await this.sql.transaction((tx) => this.secrets.consume(tx, secret));
    // Withdrawn or expired in membership: the token is worth nothing any more, and says so like a used one.
    if (!accepted || !used) throw authErrors.invalidToken();
    return { organizationId: secret.organizationId };
  }

  /** Membership's AcceptInvitation for the token's organization; false when it has no open invitation of the user. */
  async acceptWith(secret: OneTimeSecret, user: User, ctx: RequestContext): Promise<boolean> {
    if (!secret.organizationId) return false;
    const accepted = await this.membership.acceptInvitation(
      { organizationId: secret.organizationId, userId: user.id, email: user.email, name: user.name },
      ctx.requestId ? { requestId: ctx.requestId } : {},
    );
    if (!accepted) {
      this.logger.info(
        { user_id: user.id, organization_id: secret.organizationId, request_id: ctx.requestId },
        "invitation token used, but the organization has no open invitation of this user (withdrawn or expired)",
      );
    }
    return accepted;
  }
}
