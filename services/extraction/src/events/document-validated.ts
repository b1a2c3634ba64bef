import { eventConsumer } from "@docex/domain/event-consumer";
import type { SubscriptionOptions } from "@docex/kit/bus";
import { DOCUMENT_VALIDATED_CONSUMER, type LayoutLearning } from "../domain/layout-learning.js";

/** document.status_changed → a person's move out of `to_validate` teaches the supplier's layout (durable, explicit ack). */
export function documentValidatedSubscription(layouts: LayoutLearning): SubscriptionOptions {
  return eventConsumer(DOCUMENT_VALIDATED_CONSUMER, "document.status_changed", (event) => layouts.onStatusChanged(event));
}
