import { eventConsumer } from "@docex/domain/event-consumer";
import type { SubscriptionOptions } from "@docex/kit/bus";
import { SWITCH_NAMES, type SwitchName } from "@docex/queue-dto";
import type { AutomationSwitchStore } from "../store/automation-switch-store.js";

export const AUTOMATION_SWITCH_PROJECTION_CONSUMER = "document__automation_switches";

const isSwitch = (resource: string): resource is SwitchName => (SWITCH_NAMES as readonly string[]).includes(resource);

/**
 * Follows automation's switches and extraction evaluation thresholds from its `configuration.changed` events, so a
 * queue read answers them without asking automation (which itself asks document for the queue). Each event carries
 * the whole state of one switch; the store keeps the newest per switch. Other configuration changes are acknowledged
 * and dropped.
 */
export function automationSwitchProjection(store: AutomationSwitchStore): SubscriptionOptions {
  return eventConsumer(AUTOMATION_SWITCH_PROJECTION_CONSUMER, "configuration.changed", async (event) => {
    const { resource, resource_id: resourceId, queue_id: queueId, current } = event.data;
    if (!isSwitch(resource) || resourceId !== null || !queueId || current === null) return;
    await store.record({ queueId, resource, state: current, changedAt: event.occurred_at });
  });
}
