import { type DocexEvent, EventValidationError, eventSubject, parseEvent } from "@docex/events";
import type { SubscriptionOptions } from "@docex/kit/bus";
import type { Logger } from "@docex/kit/logger";
import { DOCUMENT_EXTRACTED_CONSUMER, type DocumentAutomation } from "../domain/document-automation.js";

/**
 * Runs automation on every document.extracted. Idempotent: a handled event id is claimed with the run's
 * record, and the document service remembers the change by the event id too. A failure (document service
 * down) leaves the event unacknowledged, so JetStream delivers it again later.
 */
export function documentExtractedSubscription(automation: DocumentAutomation, logger: Logger): SubscriptionOptions {
  return {
    durable: DOCUMENT_EXTRACTED_CONSUMER,
    subject: eventSubject("document.extracted"),
    // While the document service is down the event waits: about half an hour of retries before it is dead-lettered.
    maxDeliver: 40,
    retryDelaysMs: [500, 2_000, 10_000, 30_000, 60_000],
    handler: async (payload) => {
      let event: DocexEvent<"document.extracted">;
      try {
        event = parseEvent(payload, "document.extracted");
      } catch (error) {
        // Redelivering an event that does not parse would fail the same way every time.
        if (error instanceof EventValidationError) {
          logger.error({ err: error }, "unreadable document.extracted dropped");
          return;
        }
        throw error;
      }
      await automation.handle(event);
    },
  };
}
