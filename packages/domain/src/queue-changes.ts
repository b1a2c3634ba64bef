import { eventSubject } from "@docex/events";
import type { EventBus } from "@docex/kit/bus";

/** The webhook types whose webhooks decide which validator applies to a queue's documents (document keeps them with the queue). */
const VALIDATION_WEBHOOK_TYPES: readonly unknown[] = ["document_validation", "initial_document_validation"];

/**
 * Calls `forget(queueId)` on every instance whenever a queue is changed (`configuration.changed` of resource
 * `queue`), deleted (`queue.deleted`), or its validators change (`validation_link`; a `webhook` of a validation type,
 * every queue when it sits above queues), for the caches of queues that services keep (document's own, with the
 * queue's validators; extraction's and learning's GetQueue answers). Plain NATS subscriptions, so every instance hears
 * them; an unreadable event or a reconnect (events may have been missed) calls `forget()` with no id: forget them all.
 */
export function forgetChangedQueues(bus: Pick<EventBus, "broadcast">, forget: (queueId?: string) => void): { stop(): void } {
  const onReconnect = () => forget();
  const changed = bus.broadcast(
    eventSubject("configuration.changed"),
    (payload) => {
      const data = (payload as { data?: ChangedConfiguration } | undefined)?.data;
      if (typeof data?.resource !== "string") return forget();
      if (data.resource === "queue") forget(typeof data.resource_id === "string" ? data.resource_id : undefined);
      if (data.resource === "validation_link" || (data.resource === "webhook" && isValidationWebhook(data))) {
        forget(typeof data.queue_id === "string" ? data.queue_id : undefined);
      }
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

interface ChangedConfiguration {
  resource?: unknown;
  resource_id?: unknown;
  queue_id?: unknown;
  previous?: { type?: unknown } | null;
  current?: { type?: unknown } | null;
}

function isValidationWebhook(data: ChangedConfiguration): boolean {
  return VALIDATION_WEBHOOK_TYPES.includes(data.current?.type) || VALIDATION_WEBHOOK_TYPES.includes(data.previous?.type);
}
