import { eventConsumer } from "@docex/domain/event-consumer";
import type { SubscriptionOptions } from "@docex/kit/bus";
import type { Exports } from "./exports.js";

export const ON_READY_EXPORT_CONSUMER = "document__on_ready_exports";

/**
 * A document reaching `ready_to_export`, by any path (the status route, automation, the last approval), is exported
 * by its queue's on_ready exports: the service follows its own `document.status_changed` events, written in the
 * move's transaction (outbox) and acknowledged only after the export's transaction commits, so a stop in between
 * loses nothing.
 */
export function onReadyExports(exports: Exports): SubscriptionOptions {
  return eventConsumer(ON_READY_EXPORT_CONSUMER, "document.status_changed", async (event) => {
    if (event.data.status !== "ready_to_export") return;
    await exports.exportOnReady(event.id, event.data.document_id);
  });
}
