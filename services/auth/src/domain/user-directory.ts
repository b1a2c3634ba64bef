import { randomUUID } from "node:crypto";
import type { UnitOfWork } from "@docex/kit/db";
import { NotFoundError, ValidationError } from "@docex/kit/errors";
import { z } from "zod";
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
  /** When the invitation expires (membership decides); undefined: 7 days. */
  expiresAt?: Date;
}

const uuid = z.guid();
const email = z.email();

/** Users as other services see them (over gRPC): lookups, and invitations on behalf of membership. */
export class UserDirectory {
  constructor(
    private readonly sql: UnitOfWork,
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
   * Creates the user (invited) when the email is unknown, and mails an invitation token bound to the organization
   * whether or not the email was known: a new user sets a password with it (change-password), a user with one
   * accepts it (accept-invitation). Either way membership counts them as members only once they accept. The same
   * statements run for both, so neither the answer nor its timing tells membership's caller anything. A
   * deactivated account gets no mail; the per-recipient mail quota applies as to every mail.
   */
  async invite(invitation: Invitation, requestId: string | undefined): Promise<{ userId: string; created: boolean }> {
    const address = normalizeEmail(invitation.email);
    const problems = [
      ...(email.safeParse(address).success ? [] : [{ path: "email", message: "Invalid email address" }]),
      ...(uuid.safeParse(invitation.organizationId).success ? [] : [{ path: "organization_id", message: "Must be a UUID." }]),
    ];
    if (problems.length > 0) throw new ValidationError("The invitation is invalid.", problems);
    const inviter = uuid.safeParse(invitation.invitedBy).success ? await this.users.findById(invitation.invitedBy) : undefined;
    const locale = isUiLocale(invitation.locale) ? invitation.locale : null;
    const mayMail = await this.throttle.admitMailTo("invitation", address);
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
      if (mayMail && user.status !== "deactivated") {
        const { token, expiresAt } = await this.secrets.issueInvitation(tx, user.id, invitation.organizationId, invitation.expiresAt);
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
            acceptOnly: user.status === "active",
            ...(inviter ? { invitedBy: inviter.email } : {}),
          },
          requestId,
        );
      }
      return { userId: user.id, created };
    });
  }
}
