import { MembershipPermissions } from "@docex/access";
import { removalSubscription } from "@docex/domain/removals";
import { serviceConfigSchema } from "@docex/kit/config";
import type { Logger } from "@docex/kit/logger";
import { connectInfrastructure, type RunningService } from "@docex/kit/runtime";
import { registerService } from "@docex/protos";
import { z } from "zod";
import { documentPort } from "./clients/document.js";
import { RegisterAccess } from "./domain/access.js";
import { RegisterCatalog } from "./domain/register-catalog.js";
import { RegisterUploads } from "./domain/uploads.js";
import { registerCallers, registerHandlers } from "./grpc/register-handlers.js";
import { registerBodyLimits, registerHttp } from "./http/routes.js";
import { migrations } from "./store/migrations.js";
import { RegisterStore } from "./store/register-store.js";
import { SearchIndexUpkeep } from "./store/search-index-upkeep.js";

/** How an upload is read, for the check that the register's heap holds its largest uploads (deploy/k8s). */
export { MAX_ITEMS_PER_UPLOAD } from "./domain/uploads.js";
export { uploadBody, uploadEntriesOf } from "./http/schemas.js";

export const configSchema = serviceConfigSchema("register").extend({
  /** Deadline of calls to document (ResolveEntity) and membership (CheckPermission). */
  DOWNSTREAM_DEADLINE_MS: z.coerce.number().int().min(50).default(2_000),
  /** How long membership's answers are reused; `membership.changed` evicts them sooner. 0 asks every time. */
  PERMISSION_CACHE_MS: z.coerce.number().int().min(0).default(30_000),
});
export type RegisterConfig = z.infer<typeof configSchema>;

/** Builds the register service from its configuration and starts it; the handle stops it gracefully. */
export async function startRegisterService(config: RegisterConfig, options: { logger?: Logger } = {}): Promise<RunningService> {
  const infra = await connectInfrastructure("register", config, { migrations, logger: options.logger });
  const { logger, metrics } = infra;
  const sql = infra.sql;
  const store = new RegisterStore(sql);
  const upkeep = new SearchIndexUpkeep(sql, logger);
  const queues = documentPort(config.DOCUMENT_GRPC_ADDR, {
    identity: infra.grpcIdentity,
    metrics,
    deadlineMs: config.DOWNSTREAM_DEADLINE_MS,
  });
  const permissions = MembershipPermissions.connect(config.MEMBERSHIP_GRPC_ADDR, {
    identity: infra.grpcIdentity,
    metrics,
    deadlineMs: config.DOWNSTREAM_DEADLINE_MS,
    cacheMs: config.PERMISSION_CACHE_MS,
    bus: infra.bus,
    logger,
  });
  const stopDependencies = async () => {
    await upkeep.stop();
    await permissions.close();
    queues.close();
  };

  const access = new RegisterAccess(permissions);
  const uploads = new RegisterUploads({ store, events: infra.events, queues, access, upkeep });
  const catalog = new RegisterCatalog({ store, queues, access });

  const http = registerHttp({ uploads, catalog }, infra.verifier);
  const app = infra.httpApp({
    api: http.api,
    routes: http.routes,
    bodyLimits: registerBodyLimits(infra.verifier),
  });
  const grpc = infra.grpcServer();
  grpc.addService(registerService.definition, registerService.serviceName, registerHandlers(catalog), registerCallers);
  const queueRemoval = removalSubscription("register__queue_deleted", "queue.deleted", (event) => store.removeQueue(event.data.queue_id));
  return infra.startOrClose(stopDependencies, () => infra.serve({ app, grpc, onStop: stopDependencies, subscriptions: [queueRemoval] }));
}
