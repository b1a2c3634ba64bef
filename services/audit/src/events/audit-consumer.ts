import { EventValidationError, parseEvent } from "@docex/events";
import type { SubscriptionOptions } from "@docex/kit/bus";
import type { Logger } from "@docex/kit/logger";
import type { AuditLog } from "../domain/audit-log.js";

/**
 * A durable of its own, new with this service: on its first start it reads the stream from its beginning (the stream
 * keeps every event), so it re-derives the entries membership recorded before the audit log moved here.
 */
export const AUDIT_LOG_CONSUMER = "audit__audit_log";

/**
 * The one consumer of the audit log: every event of the stream, each recorded once (the entry's key is the event
 * id, so a redelivery adds nothing). Event types the log does not keep are acknowledged and dropped.
 */
export function auditLogSubscription(deps: { auditLog: AuditLog; logger: Logger }, durable = AUDIT_LOG_CONSUMER): SubscriptionOptions {
  return {
    durable,
    subject: "docex.>",
    handler: async (payload, message) => {
      let event: ReturnType<typeof parseEvent>;
      try {
        event = parseEvent(payload);
      } catch (error) {
        if (!(error instanceof EventValidationError)) throw error;
        deps.logger.error({ err: error, msg_id: message.msgId }, "event left out of the audit log: invalid");
        return;
      }
      await deps.auditLog.record(event);
    },
  };
}
