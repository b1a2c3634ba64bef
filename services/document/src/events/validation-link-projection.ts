import type { SubscriptionOptions } from "@docex/kit";
import { FAILURE_POLICIES, type FailurePolicy } from "../domain/validation.js";
import type { ValidationLinkStore } from "../store/validation-link-store.js";
import { configurationChangedConsumer } from "./configuration-changed.js";

export const VALIDATION_LINK_PROJECTION_CONSUMER = "document__validation_links";

function failurePolicyOf(state: unknown): FailurePolicy {
  const policy = (state as { failure_policy?: unknown } | null)?.failure_policy;
  return FAILURE_POLICIES.find((known) => known === policy) ?? "allow";
}

/**
 * Follows the webhook service's validation links from its `configuration.changed` events, so that an edit made
 * while the webhook service is down still knows whether its queue has a validator and under which failure policy.
 * Other configuration changes are acknowledged and dropped.
 */
export function validationLinkProjection(store: ValidationLinkStore): SubscriptionOptions {
  return configurationChangedConsumer(VALIDATION_LINK_PROJECTION_CONSUMER, async (event) => {
    const { resource, resource_id: type, queue_id: queueId, change, previous, current } = event.data;
    if (resource !== "validation_link" || !type || !queueId) return;
    const present = change !== "deleted";
    await store.record({
      queueId,
      type,
      present,
      failurePolicy: failurePolicyOf(present ? current : previous),
      changedAt: event.occurred_at,
    });
  });
}
