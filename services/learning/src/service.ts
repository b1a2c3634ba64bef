import { connectInfrastructure, createHttpApp, GrpcServer, type Logger, type RunningService, serve, serviceConfigSchema } from "@docex/kit";
import type { z } from "zod";
import { migrations } from "./store/migrations.js";

export const configSchema = serviceConfigSchema("learning");
export type LearningConfig = z.infer<typeof configSchema>;

/** Builds the learning service from its configuration and starts it; the handle stops it gracefully. */
export async function startLearningService(config: LearningConfig, options: { logger?: Logger } = {}): Promise<RunningService> {
  const infra = await connectInfrastructure("learning", config, { migrations, logger: options.logger });
  const app = createHttpApp({
    logger: infra.logger,
    metrics: infra.metrics,
    readiness: infra.readiness,
    // The public endpoints of this context arrive with issue 9; until then it has none.
    routes: () => undefined,
  });
  const grpc = new GrpcServer(infra.logger, infra.metrics);
  return serve(infra, { app, grpc });
}
