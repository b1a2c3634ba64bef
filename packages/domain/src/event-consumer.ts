import { type DocexEvent, type EventType, eventSubject, parseEvent } from "@docex/events";
import type { SubscriptionOptions } from "@docex/kit/bus";

/** What a consumer may set besides its durable, subject and handler (ack wait, retries, concurrency …). */
export type ConsumerOptions = Omit<SubscriptionOptions, "durable" | "subject" | "handler">;

/**
 * A durable consumer of one docex event type: each payload is parsed as that type (one that does not parse throws,
 * so the bus retries and then dead-letters it) and handed to `handle` (what it answers is dropped); the ack follows `handle`'s promise. Each
 * service names its own durable, e.g. `learning__document_extracted`.
 */
export function eventConsumer<T extends EventType>(
  durable: string,
  type: T,
  handle: (event: DocexEvent<T>) => Promise<unknown>,
  options: ConsumerOptions = {},
): SubscriptionOptions {
  return {
    ...options,
    durable,
    subject: eventSubject(type),
    handler: async (payload) => {
      await handle(parseEvent(payload, type));
    },
  };
}
