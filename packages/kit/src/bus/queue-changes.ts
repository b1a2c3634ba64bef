import { eventSubject } from "@docex/events";
import type { EventBus } from "./event-bus.js";

/**
 * Calls `forget(queueId)` on every instance whenever a queue is changed (`configuration.changed` of resource
 * `queue`) or deleted (`queue.deleted`), for the caches of queues that services keep (document's own, extraction's
 * and learning's GetQueue answers). Plain NATS subscriptions, so every instance hears them; an unreadable event or
 * a reconnect (events may have been missed) calls `forget()` with no id: forget them all.
 */
export function forgetChangedQueues(bus: Pick<EventBus, "broadcast">, forget: (queueId?: string) => void): { stop(): void } {
  const onReconnect = () => forget();
  const changed = bus.broadcast(
    eventSubject("configuration.changed"),
    (payload) => {
      const data = (payload as { data?: { resource?: unknown; resource_id?: unknown } } | undefined)?.data;
      if (typeof data?.resource !== "string") return forget();
      if (data.resource === "queue") forget(typeof data.resource_id === "string" ? data.resource_id : undefined);
    },
    onReconnect,
  );
  const deleted = bus.broadcast(
    eventSubject("queue.deleted"),
    (payload) => {
      const queueId = (payload as { data?: { queue_id?: unknown } } | undefined)?.data?.queue_id;
      forget(typeof queueId === "string" ? queueId : undefined);
    },
    onReconnect,
  );
  return {
    stop() {
      changed.stop();
      deleted.stop();
    },
  };
}
