import type { SubscriptionOptions } from "@docex/kit";
import { VALIDATION_TYPES } from "../domain/validation.js";
import type { ValidationWebhookState, ValidatorStore } from "../store/validator-store.js";
import { configurationChangedConsumer } from "./configuration-changed.js";

/** The durable's name predates the validation webhooks' part of the projection; kept, so that it does not start over. */
export const VALIDATOR_PROJECTION_CONSUMER = "document__validation_links";

const ENTITY_TYPES = ["document", "queue", "workspace", "organization"] as const;

/** The validation type and entity of a webhook's state as configuration.changed carries it; undefined for other webhooks. */
function validationWebhookOf(state: unknown): Pick<ValidationWebhookState, "type" | "entityType" | "entityId"> | undefined {
  const { type, entity_type: entityType, entity_id: entityId } = (state ?? {}) as Record<string, unknown>;
  const validationType = VALIDATION_TYPES.find((known) => known === type);
  const entity = ENTITY_TYPES.find((known) => known === entityType);
  if (!validationType || !entity || typeof entityId !== "string") return undefined;
  return { type: validationType, entityType: entity, entityId };
}

/**
 * Follows the webhook service's validation webhooks of the deprecated API from its `configuration.changed` events.
 * An edit whose document has none (and whose queue has no link of its own, which is this service's configuration)
 * is then not asked about, and an edit made while the webhook service is down still knows whether there is a
 * validator. Other configuration changes (this service's own `validation_link` ones included) are acknowledged and dropped.
 */
export function validatorProjection(store: ValidatorStore): SubscriptionOptions {
  return configurationChangedConsumer(VALIDATOR_PROJECTION_CONSUMER, async (event) => {
    const { resource, resource_id: id, change, previous, current } = event.data;
    if (resource !== "webhook" || !id) return;
    const now = change === "deleted" ? undefined : validationWebhookOf(current);
    const before = validationWebhookOf(previous);
    const validator = now ?? before;
    if (!validator) return;
    await store.recordWebhook({ webhookId: id, ...validator, present: now !== undefined, changedAt: event.occurred_at });
  });
}
