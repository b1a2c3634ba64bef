import { eventSubject, parseEvent } from "@docex/events";
import type { SubscriptionOptions } from "@docex/kit/bus";
import { DOCUMENT_EXTRACTED_CONSUMER, type LearnedFill } from "../domain/learned-fill.js";

/** document.extracted → fill the fields the AI left empty from the supplier's memory (durable, explicit ack). */
export function documentExtractedSubscription(fill: LearnedFill): SubscriptionOptions {
  return {
    durable: DOCUMENT_EXTRACTED_CONSUMER,
    subject: eventSubject("document.extracted"),
    handler: async (payload) => {
      await fill.onExtracted(parseEvent(payload, "document.extracted"));
    },
  };
}
