import { connectInfrastructure, createHttpApp, GrpcServer, type Logger, type RunningService, serve, serviceConfigSchema } from "@docex/kit";
import type { z } from "zod";
import { migrations } from "./store/migrations.js";

export const configSchema = serviceConfigSchema("membership");
export type MembershipConfig = z.infer<typeof configSchema>;

/** Builds the membership service from its configuration and starts it; the handle stops it gracefully. */
export async function startMembershipService(config: MembershipConfig, options: { logger?: Logger } = {}): Promise<RunningService> {
  const infra = await connectInfrastructure("membership", config, { migrations, logger: options.logger });
  const app = createHttpApp({
    logger: infra.logger,
    metrics: infra.metrics,
    readiness: infra.readiness,
    // The public endpoints of this context arrive with issue 4; until then it has none.
    routes: () => undefined,
  });
  const grpc = new GrpcServer(infra.logger, infra.metrics);
  return serve(infra, { app, grpc });
}
