import { type DocexEvent, EventValidationError, eventSubject, parseEvent } from "@docex/events";
import type { BatchSubscriptionOptions } from "@docex/kit/bus";
import type { Logger } from "@docex/kit/logger";
import { documentStatusChangedFanout, type Fanout, queueCreatedFanout } from "../domain/delivery-payloads.js";

export interface FanOutDeps {
  /** Writes the deliveries of a batch of events; resolves once they are committed (DeliveryIntake). */
  intake: { write(fanouts: Fanout[]): Promise<void> };
  logger: Logger;
  /** Names the durables: deployments with their own databases never take each other's messages. */
  databaseName: string;
  ackWaitMs: number;
}

/**
 * The durable consumers of `document.status_changed` and `queue.created`: each event becomes one delivery per
 * matching webhook (the document's, its queue's, workspace's and organization's; the workspace's and
 * organization's for a new queue), idempotent on (event id, webhook id), so a redelivered event adds
 * nothing. The ack follows the commit. Replicas share each durable, so every event is handled by one of them.
 * They are the kit's batch subscriptions: one statement writes the deliveries of every event that arrived meanwhile.
 */
export function deliveryFanOutSubscriptions(deps: FanOutDeps): BatchSubscriptionOptions[] {
  const subscription = <T extends "document.status_changed" | "queue.created">(
    type: T,
    fanoutOf: (event: DocexEvent<T>) => Fanout,
  ): BatchSubscriptionOptions => ({
    durable: `${deps.databaseName}__${type.replace(".", "_")}`,
    subject: eventSubject(type),
    ackWaitMs: deps.ackWaitMs,
    handler: async (events) => {
      const fanouts: Fanout[] = [];
      for (const received of events) {
        try {
          fanouts.push({ ...fanoutOf(parseEvent(received.payload, type) as DocexEvent<T>), traceContext: received.traceContext });
        } catch (error) {
          // It will not become valid by retrying; say so loudly and move on.
          if (!(error instanceof EventValidationError)) throw error;
          deps.logger.error({ err: error, msg_id: received.msgId }, `${type} ignored: invalid event`);
        }
      }
      await deps.intake.write(fanouts);
    },
  });
  return [subscription("document.status_changed", documentStatusChangedFanout), subscription("queue.created", queueCreatedFanout)];
}
