import { randomUUID } from "node:crypto";
import type { Fanout } from "../domain/delivery-payloads.js";
import type { DeliveryStore } from "../store/delivery-store.js";
import type { DeliverySender } from "./delivery-sender.js";

/**
 * Turns a batch of events into delivery rows (one statement, one commit) and hands them to the sender. When
 * the sender has room, the rows are created already claimed by it (leased at birth) and sent at once,
 * without a claim query; otherwise they are created due, and the sender claims them as slots free up.
 */
export class DeliveryIntake {
  constructor(
    private readonly options: {
      store: DeliveryStore;
      sender: DeliverySender;
      maxAttempts: number;
      leaseMs: number;
      onCreated?: (type: Fanout["type"], count: number) => void;
    },
  ) {}

  async write(fanouts: Fanout[]): Promise<void> {
    if (fanouts.length === 0) return;
    const { store, sender, maxAttempts, leaseMs } = this.options;
    // Leased at birth only while the sender can surely start them all; a fan-out is rarely wider than a few webhooks.
    const lease = sender.freeSlots() >= fanouts.length * 4 ? { token: randomUUID(), ms: leaseMs } : undefined;
    if (lease) {
      const created = await store.fanOutLeased(fanouts, maxAttempts, lease);
      if (created.length === 0) return;
      const counts = new Map<Fanout["type"], number>();
      for (const { type } of created) counts.set(type as Fanout["type"], (counts.get(type as Fanout["type"]) ?? 0) + 1);
      for (const [type, count] of counts) this.options.onCreated?.(type, count);
      sender.adopt(created);
      return;
    }
    // Not leased: only the counts come back; the sender claims the deliveries as slots free up.
    const counts = await store.fanOut(fanouts, maxAttempts);
    if (counts.length === 0) return;
    for (const { type, created } of counts) this.options.onCreated?.(type, created);
    sender.wake();
  }
}
