import { eventConsumer } from "@docex/domain/event-consumer";
import type { SubscriptionOptions } from "@docex/kit/bus";
import { type FeedbackIntake, VALIDATION_CONSUMER } from "../domain/feedback.js";

/** document.status_changed → a person's move out of `to_validate` teaches the supplier's memory (durable, explicit ack). */
export function documentValidatedSubscription(feedback: FeedbackIntake): SubscriptionOptions {
  return eventConsumer(VALIDATION_CONSUMER, "document.status_changed", (event) => feedback.learnFromValidation(event));
}
