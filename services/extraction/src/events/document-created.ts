import { eventSubject, parseEvent } from "@docex/events";
import type { SubscriptionOptions } from "@docex/kit/bus";
import { DOCUMENT_CREATED_CONSUMER, type DocumentReader } from "../domain/document-reader.js";

/** document.created → read the file (durable, explicit ack; the ack waits long enough for an OCR run). */
export function documentCreatedSubscription(
  reader: DocumentReader,
  options: { ackWaitMs: number; maxInFlight: number; concurrency: number; onStop: () => void },
): SubscriptionOptions {
  return {
    durable: DOCUMENT_CREATED_CONSUMER,
    subject: eventSubject("document.created"),
    ackWaitMs: options.ackWaitMs,
    maxInFlight: options.maxInFlight,
    concurrency: options.concurrency,
    onStop: options.onStop,
    handler: async (payload) => {
      const event = parseEvent(payload, "document.created");
      // has_file is read from the payload as sent, so an event schema that does not name it yet cannot drop it.
      const hasFile = (payload as { data?: { has_file?: unknown } }).data?.has_file === true;
      await reader.onCreated({ ...event, data: { ...event.data, has_file: hasFile } });
    },
  };
}
