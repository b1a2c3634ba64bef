import { eventConsumer } from "@docex/domain/event-consumer";
import type { SubscriptionOptions } from "@docex/kit/bus";
import type { HierarchyStore } from "../store/hierarchy-store.js";

export const ORGANIZATION_PROJECTION_CONSUMER = "document__organization_created";

/**
 * Keeps the projection of membership's organizations (id, humanized id, name) that ResolveEntity answers
 * from. An upsert, so a redelivered event changes nothing.
 */
export function organizationProjection(store: HierarchyStore): SubscriptionOptions {
  return eventConsumer(ORGANIZATION_PROJECTION_CONSUMER, "organization.created", (event) =>
    store.rememberOrganization({ id: event.data.organization_id, humanizedId: event.data.humanized_id, name: event.data.name }),
  );
}
