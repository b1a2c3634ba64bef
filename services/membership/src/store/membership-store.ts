import { claimEvent, type OutboxEvents } from "@docex/kit/bus";
import type { Sql, TransactionOptions, Tx, UnitOfWork } from "@docex/kit/db";
import { MemberProfileStore } from "./member-profile-store.js";
import { MemberStore } from "./member-store.js";
import { OrganizationStore } from "./organization-store.js";
import { UserSchemaStore } from "./user-schema-store.js";

export type { MemberProfile } from "./member-profile-store.js";
export type { Member, StatusChange } from "./member-store.js";
export type { Organization } from "./organization-store.js";
export type { UserSchemaField } from "./user-schema-store.js";
export type { Tx };

/**
 * The membership database: one store per aggregate (organizations, memberships, member profiles, user schemas), all
 * on one `Sql`, and the one unit of work the domain opens transactions through (with the outbox and the claimed
 * events in the same transaction). Answers are plain objects.
 */
export class MembershipStore implements UnitOfWork {
  readonly organizations: OrganizationStore;
  readonly memberships: MemberStore;
  readonly profiles: MemberProfileStore;
  readonly userSchemas: UserSchemaStore;

  constructor(
    private readonly sql: Sql,
    /** Events into the outbox, in the caller's transaction (the infrastructure's `events`). */
    readonly events: OutboxEvents,
  ) {
    this.organizations = new OrganizationStore(this.sql);
    this.memberships = new MemberStore(this.sql);
    this.profiles = new MemberProfileStore(this.sql);
    this.userSchemas = new UserSchemaStore(this.sql);
  }

  transaction<T>(work: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T> {
    return this.sql.transaction(work, options);
  }

  /**
   * Forgets a deleted queue (queue.deleted): its user schemas, and its id in members' queue_ids. A member left with
   * no queue keeps the membership and sees nothing until given a queue; no permission changes, so no event.
   */
  async forgetQueue(queueId: string): Promise<void> {
    await this.transaction(async (tx) => {
      await this.sql.run(`DELETE FROM user_schemas WHERE queue_id = $1::uuid`, [queueId], tx);
      await this.sql.run(
        `UPDATE memberships SET queue_ids = array_remove(queue_ids, $1::uuid) WHERE queue_ids @> ARRAY[$1::uuid]`,
        [queueId],
        tx,
      );
    });
  }

  /** Records that `consumer` handled `eventId` in `tx`; false when it was handled before. */
  claimEvent(tx: Tx, consumer: string, eventId: string): Promise<boolean> {
    return claimEvent(this.sql, tx, consumer, eventId);
  }

  /** Serializes work on one key (an idempotency key) across instances, until `tx` ends. */
  async lockKey(tx: Tx, key: string): Promise<void> {
    await this.sql.rows("SELECT pg_advisory_xact_lock(hashtextextended($1, 0)) AS locked", [key], tx);
  }
}
