import { randomUUID } from "node:crypto";
import { NotFoundError, ValidationError } from "@docex/kit";
import { z } from "zod";
import type { Sql } from "../store/sql.js";
import type { UserStore } from "../store/user-store.js";
import type { Clock } from "./clock.js";
import type { MailRequests } from "./mail-requests.js";
import type { OneTimeSecrets } from "./one-time-secrets.js";
import type { Throttle } from "./throttle.js";
import { isUiLocale, normalizeEmail, type User } from "./users.js";

export interface Invitation {
  email: string;
  organizationId: string;
  organizationName: string;
  /** User id of who invites; their email is named in the mail. */
  invitedBy: string;
  locale: string;
}

const uuid = z.guid();
const email = z.email();

/** Users as other services see them (over gRPC): lookups, and invitations on behalf of membership. */
export class UserDirectory {
  constructor(
    private readonly sql: Sql,
    private readonly users: UserStore,
    private readonly secrets: OneTimeSecrets,
    private readonly mail: MailRequests,
    private readonly throttle: Throttle,
    private readonly clock: Clock,
  ) {}

  async get(userId: string): Promise<User> {
    const user = uuid.safeParse(userId).success ? await this.users.findById(userId) : undefined;
    if (!user) throw new NotFoundError("No user has this id.", "user_not_found");
    return user;
  }

  async findByEmail(address: string): Promise<User | undefined> {
    return this.users.findByEmail(normalizeEmail(address));
  }

  /**
   * Creates the user (invited) when the email is unknown, and mails an invitation token to a user
   * who has no password yet. A user who has one is only looked up: membership adds them directly.
   */
  async invite(invitation: Invitation, requestId: string | undefined): Promise<{ userId: string; created: boolean }> {
    const address = normalizeEmail(invitation.email);
    if (!email.safeParse(address).success) {
      throw new ValidationError("The invitation is invalid.", [{ path: "email", message: "Invalid email address" }]);
    }
    const inviter = uuid.safeParse(invitation.invitedBy).success ? await this.users.findById(invitation.invitedBy) : undefined;
    const locale = isUiLocale(invitation.locale) ? invitation.locale : null;
    const existing = await this.users.findByEmail(address);
    const mayMail = (!existing || existing.status === "invited") && (await this.throttle.admitMailTo("invitation", address));
    return this.sql.transaction(async (tx) => {
      const now = this.clock.now();
      const { user, created } = await this.users.findOrCreate(tx, {
        id: randomUUID(),
        email: address,
        status: "invited",
        passwordHash: null,
        uiLocale: locale,
        now,
      });
      if (mayMail && user.status === "invited") {
        const { token, expiresAt } = await this.secrets.issueToken(tx, user.id, "invitation");
        await this.mail.request(
          tx,
          {
            to: address,
            userId: user.id,
            template: "invitation",
            locale: locale ?? user.uiLocale,
            secret: { token },
            expiresAt,
            organizationName: invitation.organizationName,
            ...(inviter ? { invitedBy: inviter.email } : {}),
          },
          requestId,
        );
      }
      return { userId: user.id, created };
    });
  }
}
