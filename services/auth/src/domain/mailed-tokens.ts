import type { UnitOfWork } from "@docex/kit/db";
import type { UserStore } from "../store/user-store.js";
import type { BackgroundWork } from "./background-work.js";
import type { MailRequests } from "./mail-requests.js";
import type { OneTimeSecrets, TokenPurpose } from "./one-time-secrets.js";
import type { RequestContext } from "./request-context.js";
import type { Throttle } from "./throttle.js";
import { normalizeEmail, type UserStatus } from "./users.js";

interface MailedTokenKind {
  purpose: TokenPurpose;
  template: "magic_link" | "password_reset";
  /** Who may receive it: magic links log in, so only users with a password; a reset also sets an invitee's first one. */
  statuses: UserStatus[];
}

const MAGIC_LINK: MailedTokenKind = { purpose: "magic_login", template: "magic_link", statuses: ["active"] };
const PASSWORD_RESET: MailedTokenKind = { purpose: "password_reset", template: "password_reset", statuses: ["active", "invited"] };

/**
 * Magic links and password resets. The answer is 202 whatever the email, so nobody learns whether
 * it is registered; the mail goes only to a user who may use it.
 */
export class MailedTokens {
  constructor(
    private readonly sql: UnitOfWork,
    private readonly users: UserStore,
    private readonly secrets: OneTimeSecrets,
    private readonly mail: MailRequests,
    private readonly throttle: Throttle,
    private readonly background: BackgroundWork,
  ) {}

  requestMagicLink(email: string, ctx: RequestContext): Promise<void> {
    return this.send(MAGIC_LINK, email, ctx);
  }

  requestPasswordReset(email: string, ctx: RequestContext): Promise<void> {
    return this.send(PASSWORD_RESET, email, ctx);
  }

  /** Answers once the address's quota allows the request; whether a mail goes out is decided afterwards. */
  private async send(kind: MailedTokenKind, email: string, ctx: RequestContext): Promise<void> {
    await this.throttle.admitMailRequest(ctx.clientAddress);
    this.background.run(kind.template, ctx.requestId, () => this.mailIfAllowed(kind, normalizeEmail(email), ctx));
  }

  private async mailIfAllowed(kind: MailedTokenKind, email: string, ctx: RequestContext): Promise<void> {
    const user = await this.users.findByEmail(email);
    if (!user || !kind.statuses.includes(user.status)) return;
    if (!(await this.throttle.admitMailTo(kind.purpose, email))) return;
    await this.sql.transaction(async (tx) => {
      const { token, expiresAt } = await this.secrets.issueToken(tx, user.id, kind.purpose);
      await this.mail.request(
        tx,
        { to: user.email, userId: user.id, template: kind.template, locale: user.uiLocale, secret: { token }, expiresAt },
        ctx.requestId,
      );
    });
  }
}
