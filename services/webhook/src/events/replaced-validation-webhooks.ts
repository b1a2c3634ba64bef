import { eventConsumer } from "@docex/domain/event-consumer";
import type { SubscriptionOptions } from "@docex/kit/bus";
import { isValidationType } from "../domain/records.js";
import type { Webhooks } from "../domain/webhooks.js";

/**
 * The backstop of DeleteValidationWebhook: a queue's external validation link saved or deleted in the document service
 * (its `configuration.changed` of resource `validation_link`) replaces the queue's own validation webhook of that type
 * made before it. The document service calls DeleteValidationWebhook after its commit; this catches a call that failed.
 * Deleting what is already gone changes nothing.
 */
export function replacedValidationWebhooks(webhooks: Pick<Webhooks, "replacedByLink">): SubscriptionOptions {
  return eventConsumer("webhook__replaced_validation_webhooks", "configuration.changed", async (event) => {
    const { resource, resource_id: type, queue_id: queueId } = event.data;
    if (resource !== "validation_link" || !queueId || !event.organization_id || !type || !isValidationType(type)) return;
    await webhooks.replacedByLink(event.organization_id, queueId, type, new Date(event.occurred_at));
  });
}
