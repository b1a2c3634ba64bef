import { eventConsumer } from "@docex/domain/event-consumer";
import type { SubscriptionOptions } from "@docex/kit/bus";
import { ENTITY_TYPES, type EntityType, VALIDATION_TYPES, type ValidationType } from "../domain/validation.js";
import type { ValidationWebhooks } from "../domain/validation-webhooks.js";

/** The durable's name predates the validation webhooks being this service's configuration; kept, so that it does not start over. */
export const VALIDATOR_PROJECTION_CONSUMER = "document__validation_links";

/** The validation type and entity of a webhook's state as configuration.changed carries it; undefined for other webhooks. */
function validationWebhookOf(state: unknown): { type: ValidationType; entityType: EntityType; entityId: string } | undefined {
  const { type, entity_type: entityType, entity_id: entityId } = (state ?? {}) as Record<string, unknown>;
  const validationType = VALIDATION_TYPES.find((known) => known === type);
  const entity = ENTITY_TYPES.find((known) => known === entityType);
  if (!validationType || !entity || typeof entityId !== "string") return undefined;
  return { type: validationType, entityType: entity, entityId };
}

/**
 * The backstop of RecordValidationWebhook: the webhook service's `configuration.changed` of a validation webhook of
 * the deprecated API is recorded as that call records it (the same state twice, or an older one, changes nothing), so
 * a call that failed after the webhook service's commit is made up for. Other configuration changes (this service's
 * own `validation_link` ones included) are acknowledged and dropped.
 */
export function validatorProjection(webhooks: ValidationWebhooks): SubscriptionOptions {
  return eventConsumer(VALIDATOR_PROJECTION_CONSUMER, "configuration.changed", async (event) => {
    const { resource, resource_id: id, change, previous, current } = event.data;
    if (resource !== "webhook" || !id || !event.organization_id) return;
    const now = change === "deleted" ? undefined : validationWebhookOf(current);
    const validator = now ?? validationWebhookOf(previous);
    if (!validator) return;
    await webhooks.record({
      webhookId: id,
      organizationId: event.organization_id,
      ...validator,
      present: now !== undefined,
      changedAt: new Date(event.occurred_at),
      actorUserId: event.actor_user_id ?? null,
    });
  });
}
