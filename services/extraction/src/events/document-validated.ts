import { eventSubject, parseEvent } from "@docex/events";
import type { SubscriptionOptions } from "@docex/kit/bus";
import { DOCUMENT_VALIDATED_CONSUMER, type LayoutLearning } from "../domain/layout-learning.js";

/** document.status_changed → a person's move out of `to_validate` teaches the supplier's layout (durable, explicit ack). */
export function documentValidatedSubscription(layouts: LayoutLearning): SubscriptionOptions {
  return {
    durable: DOCUMENT_VALIDATED_CONSUMER,
    subject: eventSubject("document.status_changed"),
    handler: async (payload) => {
      await layouts.onStatusChanged(parseEvent(payload, "document.status_changed"));
    },
  };
}
