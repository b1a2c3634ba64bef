import type { DocexEvent } from "@docex/events";
import type { SubscriptionOptions } from "@docex/kit/bus";
import type { Sql } from "@docex/kit/db";
import { eventConsumer } from "./event-consumer.js";

/** The events that tell every service to remove what it keeps of a part of the hierarchy, or of purged documents. */
export type RemovalEvent = "queue.deleted" | "workspace.deleted" | "documents.purged";

/**
 * A durable consumer that removes what this service keeps of a deleted queue (or workspace): `remove` deletes rows
 * by the event's ids, so a redelivered event removes nothing more. Each service names its own durable, e.g.
 * `register__queue_deleted`.
 */
export function removalSubscription<T extends RemovalEvent>(
  durable: string,
  type: T,
  remove: (event: DocexEvent<T>) => Promise<void>,
): SubscriptionOptions {
  return eventConsumer(durable, type, remove);
}

/**
 * The `remove` of a service whose rows of a queue all carry `queue_id`: deletes them from `tables`, in that order
 * (children first), in one transaction.
 */
export function deleteRowsOfQueue(sql: Sql, tables: readonly string[]): (event: DocexEvent<"queue.deleted">) => Promise<void> {
  return (event) =>
    sql.transaction(async (tx) => {
      for (const table of tables) await sql.run(`DELETE FROM ${table} WHERE queue_id = $1`, [event.data.queue_id], tx);
    });
}

/**
 * The `remove` of a service whose rows of a document all carry `document_id`: deletes those of the purged documents
 * (`documents.purged`) from `tables`, in that order (children first), in one transaction.
 */
export function deleteRowsOfDocuments(sql: Sql, tables: readonly string[]): (event: DocexEvent<"documents.purged">) => Promise<void> {
  return (event) =>
    sql.transaction(async (tx) => {
      for (const table of tables) {
        await sql.run(`DELETE FROM ${table} WHERE document_id = ANY($1::uuid[])`, [event.data.document_ids], tx);
      }
    });
}
