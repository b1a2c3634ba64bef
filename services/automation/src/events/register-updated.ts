import { eventConsumer } from "@docex/domain/event-consumer";
import type { SubscriptionOptions } from "@docex/kit/bus";
import type { RegisterStore } from "../store/register-store.js";

export const REGISTER_UPDATED_CONSUMER = "automation__register_updated";

/** Keeps the projection of which register belongs to which queue (for in_register conditions). An upsert, so redelivery is harmless. */
export function registerUpdatedSubscription(store: RegisterStore): SubscriptionOptions {
  return eventConsumer(REGISTER_UPDATED_CONSUMER, "register.updated", async (event) => {
    if (!event.organization_id) throw new Error(`register.updated ${event.id} names no organization`);
    await store.remember({
      registerId: event.data.register_id,
      queueId: event.data.queue_id,
      organizationId: event.organization_id,
      name: event.data.name,
    });
  });
}
