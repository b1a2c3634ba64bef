import { eventSubject } from "@docex/events";
import type { EventBus } from "./event-bus.js";

/**
 * Calls `forget(queueId)` on every instance whenever a queue is changed or deleted (`configuration.changed` of
 * resource `queue`), for the caches of queues that services keep (document's own, extraction's and learning's
 * GetQueue answers). A plain NATS subscription, so every instance hears it; an unreadable event or a reconnect
 * (events may have been missed) calls `forget()` with no id: forget them all.
 */
export function forgetChangedQueues(bus: Pick<EventBus, "broadcast">, forget: (queueId?: string) => void): { stop(): void } {
  return bus.broadcast(
    eventSubject("configuration.changed"),
    (payload) => {
      const data = (payload as { data?: { resource?: unknown; resource_id?: unknown } } | undefined)?.data;
      if (typeof data?.resource !== "string") return forget();
      if (data.resource === "queue") forget(typeof data.resource_id === "string" ? data.resource_id : undefined);
    },
    () => forget(),
  );
}
