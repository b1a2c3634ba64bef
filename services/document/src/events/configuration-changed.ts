import { type DocexEvent, eventSubject, parseEvent } from "@docex/events";
import type { SubscriptionOptions } from "@docex/kit/bus";

/**
 * A durable consumer of `configuration.changed` that hands each parsed event to `apply`. Document keeps two
 * projections of other services' configuration (validation links, automation's switches), each on its own durable
 * so that one can be replayed or reset without the other.
 */
export function configurationChangedConsumer(
  durable: string,
  apply: (event: DocexEvent<"configuration.changed">) => Promise<void>,
): SubscriptionOptions {
  return {
    durable,
    subject: eventSubject("configuration.changed"),
    handler: (payload) => apply(parseEvent(payload, "configuration.changed")),
  };
}
