import { type DocexEvent, eventSubject } from "@docex/events";
import type { Outbox } from "@docex/kit";
import type { Tx } from "./sql.js";

/** Writes events into the outbox in the caller's transaction; the kit's relay publishes them after commit. */
export class OutboxEvents {
  constructor(private readonly outbox: Outbox) {}

  async add(tx: Tx, ...events: DocexEvent[]): Promise<void> {
    await this.outbox.add(
      tx,
      ...events.map((event) => ({ id: event.id, subject: eventSubject(event.type), payload: event, requestId: event.request_id })),
    );
  }
}
