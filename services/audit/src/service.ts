import type { Logger } from "@docex/kit/logger";
import { connectInfrastructure, type RunningService } from "@docex/kit/runtime";
import { membershipClient } from "./clients/membership.js";
import type { AuditConfig } from "./config.js";
import { AuditLog } from "./domain/audit-log.js";
import type { Membership } from "./domain/readers.js";
import { AUDIT_LOG_CONSUMER, auditLogSubscription } from "./events/audit-consumer.js";
import { auditHttp } from "./http/routes.js";
import { AuditStore } from "./store/audit-store.js";
import { migrations } from "./store/migrations.js";

export { type AuditConfig, configSchema } from "./config.js";
export type { Membership } from "./domain/readers.js";

export interface AuditServiceOptions {
  logger?: Logger;
  /** Replaces the gRPC client of membership (tests). */
  membership?: Membership;
}

/** Builds the audit service from its configuration and starts it; the handle stops it gracefully. */
export async function startAuditService(config: AuditConfig, options: AuditServiceOptions = {}): Promise<RunningService> {
  const infra = await connectInfrastructure("audit", config, { migrations, logger: options.logger });
  const client = options.membership
    ? undefined
    : membershipClient(config.MEMBERSHIP_GRPC_ADDR, { identity: infra.grpcIdentity, deadlineMs: 2_000, metrics: infra.metrics });
  let purgeTimer: NodeJS.Timeout | undefined;
  const closeOnFailure = async () => {
    clearInterval(purgeTimer);
    await client?.close();
  };
  return infra.startOrClose(closeOnFailure, async () => {
    const auditLog = new AuditLog(new AuditStore(infra.sql), options.membership ?? client!, config.AUDIT_RETENTION_DAYS);
    const purge = async () => {
      try {
        const purged = await auditLog.purgeExpired();
        if (purged > 0) infra.logger.info({ purged, retention_days: config.AUDIT_RETENTION_DAYS }, "audit entries past retention deleted");
      } catch (error) {
        infra.logger.warn({ err: error }, "audit retention purge failed; next round retries");
      }
    };
    const running = await infra.serve({
      app: infra.httpApp(auditHttp(auditLog, infra.verifier)),
      // No gRPC service of its own: the server answers grpc.health.v1 only, like every other process.
      grpc: infra.grpcServer(),
      subscriptions: [auditLogSubscription({ auditLog, logger: infra.logger }, AUDIT_LOG_CONSUMER)],
      onStop: closeOnFailure,
    });
    purgeTimer = setInterval(purge, config.AUDIT_PURGE_INTERVAL_MS);
    purgeTimer.unref();
    void purge();
    return running;
  });
}
