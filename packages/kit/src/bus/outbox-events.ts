import { type DocexEvent, eventSubject } from "@docex/events";
import type { Tx } from "../db/sql.js";
import type { Outbox } from "./outbox.js";

/** Writes events into the outbox in the caller's transaction; the relay publishes them after commit. */
export class OutboxEvents {
  constructor(private readonly outbox: Outbox) {}

  async add(tx: Tx, ...events: DocexEvent[]): Promise<void> {
    await this.outbox.add(
      tx,
      ...events.map((event) => ({ id: event.id, subject: eventSubject(event.type), payload: event, requestId: event.request_id })),
    );
  }
}
