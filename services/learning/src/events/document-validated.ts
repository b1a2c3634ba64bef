import { eventSubject, parseEvent } from "@docex/events";
import type { SubscriptionOptions } from "@docex/kit/bus";
import { type FeedbackIntake, VALIDATION_CONSUMER } from "../domain/feedback.js";

/** document.status_changed → a person's move out of `to_validate` teaches the supplier's memory (durable, explicit ack). */
export function documentValidatedSubscription(feedback: FeedbackIntake): SubscriptionOptions {
  return {
    durable: VALIDATION_CONSUMER,
    subject: eventSubject("document.status_changed"),
    handler: async (payload) => {
      await feedback.learnFromValidation(parseEvent(payload, "document.status_changed"));
    },
  };
}
