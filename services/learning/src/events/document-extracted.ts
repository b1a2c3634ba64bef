import { eventConsumer } from "@docex/domain/event-consumer";
import type { SubscriptionOptions } from "@docex/kit/bus";
import { DOCUMENT_EXTRACTED_CONSUMER, type LearnedFill } from "../domain/learned-fill.js";

/** document.extracted → fill the fields the AI left empty from the supplier's memory (durable, explicit ack). */
export function documentExtractedSubscription(fill: LearnedFill): SubscriptionOptions {
  return eventConsumer(DOCUMENT_EXTRACTED_CONSUMER, "document.extracted", (event) => fill.onExtracted(event));
}
