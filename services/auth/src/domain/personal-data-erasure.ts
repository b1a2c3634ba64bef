import { randomUUID } from "node:crypto";
import { createEvent, type DocexEvent } from "@docex/events";
import type { OutboxEvents } from "@docex/kit/bus";
import type { Tx, UnitOfWork } from "@docex/kit/db";
import { NotFoundError } from "@docex/kit/errors";
import type { UserStore } from "../store/user-store.js";
import type { Clock } from "./clock.js";
import type { RequestContext } from "./request-context.js";
import type { Sessions } from "./sessions.js";

/** The email an erased account keeps: unique, and in a domain that can never receive mail (RFC 2606 `.invalid`). */
export function erasedEmail(): string {
  return `erased-${randomUUID()}@erased.invalid`;
}

/**
 * Erasure of a person's account: their name and email become placeholders, and the account can no longer sign in
 * (no password, no second factor, no mailed token, every session revoked). The row keeps its id, so what other
 * services and the audit log keep of the person still points somewhere.
 */
export class PersonalDataErasure {
  constructor(
    private readonly sql: UnitOfWork,
    private readonly users: UserStore,
    private readonly sessions: Sessions,
    private readonly events: OutboxEvents,
    private readonly clock: Clock,
  ) {}

  /** DELETE /auth/me: erases the caller's account and publishes `user.personal_data_erased` in the same transaction. */
  async eraseSelf(userId: string, ctx: RequestContext): Promise<void> {
    await this.sql.transaction(async (tx) => {
      if (!(await this.erase(tx, userId))) throw new NotFoundError("The account of this token no longer exists.", "user_not_found");
      await this.events.add(
        tx,
        createEvent("user.personal_data_erased", {
          organization_id: null,
          data: { user_id: userId },
          actor_user_id: userId,
          ...(ctx.requestId ? { request_id: ctx.requestId } : {}),
        }),
      );
    });
  }

  /**
   * `member.personal_data_erased` from membership: the person belonged to no other organization, so the account goes
   * too. Erasing an erased account changes nothing, so a redelivery is harmless.
   */
  async onMemberErased(event: DocexEvent<"member.personal_data_erased">): Promise<void> {
    if (!event.data.account_erased) return;
    await this.sql.transaction((tx) => this.erase(tx, event.data.user_id));
  }

  private async erase(tx: Tx, userId: string): Promise<boolean> {
    const user = await this.users.findById(userId, tx, true);
    if (!user) return false;
    if (!(await this.users.erase(tx, userId, erasedEmail(), this.clock.now()))) return false;
    await this.sessions.revokeAll(tx, userId, "erased");
    await this.users.forgetPublishedEventsWith(tx, user.email);
    return true;
  }
}
