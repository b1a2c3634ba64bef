import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import type { Sequelize } from "sequelize";
import type { z } from "zod";
import { TokenVerifier } from "./auth/token-verifier.js";
import { EventBus, type SubscriptionOptions } from "./bus/event-bus.js";
import { kitMigrations, Outbox } from "./bus/outbox.js";
import type { ServiceName, serviceConfigSchema } from "./config.js";
import { connectDatabase, type Migration, runMigrations } from "./db/database.js";
import type { GrpcServer } from "./grpc/server.js";
import { Readiness } from "./http/readiness.js";
import { createLogger, type Logger } from "./logger.js";
import { Metrics } from "./metrics.js";

export type BaseServiceConfig = z.infer<ReturnType<typeof serviceConfigSchema>>;

/** What every service connects to before it builds its own parts. */
export interface Infrastructure {
  name: ServiceName;
  config: BaseServiceConfig;
  logger: Logger;
  metrics: Metrics;
  readiness: Readiness;
  sequelize: Sequelize;
  bus: EventBus;
  outbox: Outbox;
  verifier: TokenVerifier;
}

export interface InfrastructureOptions {
  logger?: Logger;
  /** Migrations of the service; the kit's own (outbox, processed events) run first. */
  migrations: Migration[];
  outboxPollIntervalMs?: number;
}

export async function connectInfrastructure(
  name: ServiceName,
  config: BaseServiceConfig,
  options: InfrastructureOptions,
): Promise<Infrastructure> {
  const logger = options.logger ?? createLogger(name, config.LOG_LEVEL);
  const metrics = new Metrics(name);
  const readiness = new Readiness();
  const sequelize = await connectDatabase({
    serverUrl: config.DATABASE_URL,
    database: config.DATABASE_NAME,
    poolMax: config.DATABASE_POOL_MAX,
    logger,
  });
  try {
    await runMigrations(sequelize, [...kitMigrations, ...options.migrations], logger);
    const bus = await EventBus.connect({
      url: config.NATS_URL,
      name,
      logger,
      metrics,
      namespace: { stream: config.NATS_STREAM, subjectPrefix: config.NATS_SUBJECT_PREFIX },
    });
    const outbox = new Outbox({ sequelize, bus, logger, metrics, pollIntervalMs: options.outboxPollIntervalMs });
    readiness.add("postgres", () => sequelize.query("SELECT 1"));
    readiness.add("nats", () => bus.check());
    const verifier = new TokenVerifier({ jwksUri: config.AUTH_JWKS_URL, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE });
    return { name, config, logger, metrics, readiness, sequelize, bus, outbox, verifier };
  } catch (error) {
    await sequelize.close();
    throw error;
  }
}

export interface ServeOptions {
  app: Express;
  grpc?: GrpcServer;
  subscriptions?: SubscriptionOptions[];
  /** Extra work to stop before the connections close (schedulers, clients). */
  onStop?: () => Promise<void>;
}

export interface RunningService {
  name: string;
  httpPort: number;
  grpcPort: number;
  stop(): Promise<void>;
}

/** Listens, starts the outbox relay and the consumers, and returns a handle that stops them in order. */
export async function serve(infra: Infrastructure, options: ServeOptions): Promise<RunningService> {
  const { config, logger } = infra;
  const server = await listen(options.app, config.HOST, config.PORT);
  const httpPort = (server.address() as AddressInfo).port;
  const grpcPort = options.grpc ? await options.grpc.listen(config.HOST, config.GRPC_PORT) : 0;
  infra.outbox.start();
  for (const subscription of options.subscriptions ?? []) await infra.bus.subscribe(subscription);
  logger.info({ http_port: httpPort, grpc_port: grpcPort }, "service started");

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      infra.readiness.drain();
      const timeout = config.SHUTDOWN_TIMEOUT_MS;
      await Promise.all([closeHttp(server, timeout), options.grpc?.shutdown(timeout)]);
      await options.onStop?.();
      await infra.outbox.stop();
      await infra.bus.close();
      await infra.sequelize.close();
      logger.info("service stopped");
    })();
    return stopping;
  };
  return { name: infra.name, httpPort, grpcPort, stop };
}

export function listen(app: Express, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(server)));
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
  });
}

/** Stops accepting connections, lets in-flight requests finish, then closes what is left. */
export function closeHttp(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, timeoutMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * The tail of every `main.ts`: start, then stop gracefully on SIGTERM or SIGINT. A second
 * signal, or a shutdown that hangs, exits at once.
 */
export async function runUntilSignalled(start: () => Promise<{ stop(): Promise<void> }>, logger: Logger): Promise<void> {
  let running: { stop(): Promise<void> };
  try {
    running = await start();
  } catch (error) {
    logger.fatal({ err: error }, "start-up failed");
    process.exitCode = 1;
    setTimeout(() => process.exit(1), 100).unref();
    return;
  }
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(1);
    signalled = true;
    logger.info({ signal }, "shutting down");
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
