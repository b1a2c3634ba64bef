import { randomUUID } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { Express } from "express";
import type { z } from "zod";
import { CachedTokenVerifier } from "./auth/cached-token-verifier.js";
import { type AccessTokenVerifier, TokenVerifier } from "./auth/token-verifier.js";
import { EventBus, type SubscriptionOptions } from "./bus/event-bus.js";
import { kitMigrations, Outbox } from "./bus/outbox.js";
import { OutboxEvents } from "./bus/outbox-events.js";
import { loadConfigOrExit, type ServiceName, serviceConfigSchema } from "./config.js";
import { SealedWithAnotherKeyError } from "./crypto/secret-sealer.js";
import { connectDatabase, type Migration, type MigrationTimeouts, pendingMigrations, runMigrations } from "./db/database.js";
import type { Sql } from "./db/sql.js";
import { type GrpcIdentity, grpcIdentityFromConfig } from "./grpc/identity.js";
import { GrpcServer, MAX_CONNECTION_AGE_MS } from "./grpc/server.js";
import { createHttpApp, type HttpAppOptions } from "./http/app.js";
import { ClientAddressVerifier } from "./http/client-address.js";
import { Readiness } from "./http/readiness.js";
import { createLogger, type Logger } from "./logger.js";
import { Metrics } from "./metrics.js";
import { collectStartupGarbage } from "./startup-garbage.js";
import { stopTracing } from "./tracing/lifecycle.js";

export type BaseServiceConfig = z.infer<ReturnType<typeof serviceConfigSchema>>;

/** The settings of NATS every process that connects to it reads. */
export const NATS_SETTINGS = {
  NATS_URL: true,
  NATS_STREAM: true,
  NATS_SUBJECT_PREFIX: true,
  NATS_STREAM_REPLICAS: true,
  NATS_STREAM_MAX_AGE_HOURS: true,
  NATS_STREAM_MAX_BYTES: true,
  NATS_DLQ_MAX_AGE_HOURS: true,
  NATS_DLQ_MAX_BYTES: true,
  NATS_TOKEN: true,
  NATS_USER: true,
  NATS_PASSWORD: true,
  NATS_TLS_CA_FILE: true,
} as const;

/** `EventBus.connect`'s options from the configuration, but for the process's name, logger and metrics. */
export function busSettingsOf(config: Pick<BaseServiceConfig, keyof typeof NATS_SETTINGS>) {
  const hours = 3_600_000;
  return {
    url: config.NATS_URL,
    namespace: { stream: config.NATS_STREAM, subjectPrefix: config.NATS_SUBJECT_PREFIX },
    streamReplicas: config.NATS_STREAM_REPLICAS,
    streamLimits: {
      events: { maxAgeMs: config.NATS_STREAM_MAX_AGE_HOURS * hours, maxBytes: config.NATS_STREAM_MAX_BYTES },
      deadLetters: { maxAgeMs: config.NATS_DLQ_MAX_AGE_HOURS * hours, maxBytes: config.NATS_DLQ_MAX_BYTES },
    },
    credentials: { token: config.NATS_TOKEN, user: config.NATS_USER, password: config.NATS_PASSWORD, tlsCaFile: config.NATS_TLS_CA_FILE },
  };
}

/**
 * What every service connects to before it builds its own parts, and the steps every service takes on it:
 * its HTTP app and gRPC server on the shared logger, metrics and identity, `startOrClose`, then `serve`.
 */
export class Infrastructure {
  /** Adds events to the outbox inside a transaction. */
  readonly events: OutboxEvents;

  constructor(
    readonly name: ServiceName,
    readonly config: BaseServiceConfig,
    readonly logger: Logger,
    readonly metrics: Metrics,
    readonly readiness: Readiness,
    /** Queries and transactions on the service's database (its pool, closed at the end of `stop`). */
    readonly sql: Sql,
    readonly bus: EventBus,
    readonly outbox: Outbox,
    /** Access tokens, checked against auth's JWKS once per token and minute (`CachedTokenVerifier`). */
    readonly verifier: AccessTokenVerifier,
    /** The service's gRPC identity (GRPC_TLS_DIR), for its server and its clients. */
    readonly grpcIdentity: GrpcIdentity,
  ) {
    this.events = new OutboxEvents(outbox);
  }

  /** The service's HTTP app on this logger, metrics and readiness. */
  httpApp(options: ServiceHttpOptions): Express {
    const clientAddresses = new ClientAddressVerifier(this.grpcIdentity, this.name);
    return createHttpApp({ logger: this.logger, metrics: this.metrics, readiness: this.readiness, clientAddresses, ...options });
  }

  /** The service's gRPC server, with its identity and these metrics; `maxReceiveMessageBytes` for one that takes files. */
  grpcServer(options: { maxReceiveMessageBytes?: number } = {}): GrpcServer {
    return new GrpcServer(this.logger, { identity: this.grpcIdentity, metrics: this.metrics, ...options });
  }

  /**
   * Runs `start` (build the service's parts, then `serve` them). When it fails, what was opened is closed
   * before the error goes on: first `closeOnFailure` (the service's own clients and timers), then the bus and
   * the database. A failure to close is ignored, so the caller sees why the start failed, not why the
   * clean-up did.
   */
  startOrClose<T>(start: () => Promise<T>): Promise<T>;
  startOrClose<T>(closeOnFailure: () => void | Promise<void>, start: () => Promise<T>): Promise<T>;
  async startOrClose<T>(
    ...args: [start: () => Promise<T>] | [closeOnFailure: () => void | Promise<void>, start: () => Promise<T>]
  ): Promise<T> {
    const [closeOnFailure, start] = args.length === 1 ? [undefined, args[0]] : args;
    try {
      return await start();
    } catch (error) {
      await Promise.resolve()
        .then(closeOnFailure)
        .catch(() => undefined);
      await this.bus.close().catch(() => undefined);
      await this.sql.close().catch(() => undefined);
      throw error;
    }
  }

  /** Listens, starts the outbox relay and the consumers, and returns a handle that stops them in order. */
  async serve(options: ServeOptions): Promise<RunningService> {
    const { config, logger } = this;
    const grpc = options.grpc;
    // Ready only once the gRPC server listens too: Kubernetes' startup probe asks /readyz, as the kubelet
    // cannot speak mutual TLS to grpc.health.v1.
    if (grpc)
      this.readiness.add("grpc", async () => {
        if (!grpc.serving) throw new Error("the gRPC server is not serving");
      });
    const server = await listen(options.app, config.HOST, config.PORT);
    const httpPort = (server.address() as AddressInfo).port;
    let grpcPort = 0;
    try {
      if (grpc) grpcPort = await grpc.listen(config.HOST, config.GRPC_PORT);
      this.outbox.start();
      for (const subscription of options.subscriptions ?? []) await this.bus.subscribe(subscription);
    } catch (error) {
      // A start that fails once listening (its gRPC port taken, a consumer refused) closes what it opened: the
      // caller may go on (startOrClose, a test's next attempt), and a port left listening would keep the process
      // alive and answer requests without a service behind them.
      await closeHttp(server, 0);
      await grpc?.shutdown(0).catch(() => undefined);
      await this.bus.stopConsuming().catch(() => undefined);
      await this.outbox.stop().catch(() => undefined);
      throw error;
    }
    // The start ends once the channels and pools a hot path needs are open (Readiness.addStartUpWork, each bounded):
    // a caller that starts the service in-process gets one as warm as /readyz promises.
    await this.readiness.startUpFinished();
    logger.info({ http_port: httpPort, grpc_port: grpcPort }, "service started");

    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= (async () => {
        this.readiness.drain();
        const timeout = config.SHUTDOWN_TIMEOUT_MS;
        const stopBy = Date.now() + timeout + CLOSE_TIMEOUT_MS;
        // At once: no new requests, calls, events or background work; what is under way finishes (HTTP, gRPC, the
        // event consumers and the service's own work drain side by side, so the slowest alone sets the time).
        await Promise.all([
          closeHttp(server, timeout),
          grpc?.shutdown(timeout),
          finishWithin(Promise.all([options.onDrain?.(), this.bus.stopConsuming()]), timeout, () =>
            logger.warn({ timeout_ms: timeout }, "background work or event handling still running at shutdown"),
          ),
        ]);
        // Closing the clients, the outbox, NATS and Postgres has what is left of SHUTDOWN_TIMEOUT_MS +
        // CLOSE_TIMEOUT_MS (at least CLOSE_TIMEOUT_MS): a stop never takes longer, and every
        // terminationGracePeriodSeconds exceeds that.
        const closed = await finishWithin(
          (async () => {
            await options.onStop?.();
            await this.outbox.stop();
            await this.bus.close();
            await this.sql.close();
          })(),
          stopBy - Date.now(),
        );
        if (closed) logger.info("service stopped");
        else logger.warn({ timeout_ms: timeout + CLOSE_TIMEOUT_MS }, "service stopped before its connections finished closing");
      })();
      return stopping;
    };
    return { name: this.name, httpPort, grpcPort, stop };
  }
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
  const readiness = new Readiness(metrics);
  const grpcIdentity = grpcIdentityFromConfig(name, config, logger);
  const sql = await connectDatabase({
    serverUrl: config.DATABASE_URL,
    database: config.DATABASE_NAME,
    poolMax: config.DATABASE_POOL_MAX,
    poolMin: Math.min(WARM_POOL_CONNECTIONS, config.DATABASE_POOL_MAX),
    logger,
  });
  try {
    const migrations = [...kitMigrations, ...options.migrations];
    if (config.MIGRATE_ON_START) await runMigrations(sql, migrations, logger, migrationTimeouts(config));
    else {
      // Serving on a schema older than the code would fail request by request; refuse to start instead.
      const pending = await pendingMigrations(sql, migrations);
      if (pending.length > 0)
        throw new Error(
          `MIGRATE_ON_START=false, but ${pending.length} migration(s) of ${config.DATABASE_NAME} are pending (${pending.join(", ")}): run the service with MIGRATE_ONLY=true first`,
        );
    }
    const bus = await EventBus.connect({ name, logger, metrics, ...busSettingsOf(config) });
    const outbox = new Outbox({ sql, bus, logger, metrics, pollIntervalMs: options.outboxPollIntervalMs });
    // The service's own database: no request can be served without it. NATS can be away for a while: events
    // wait in the outbox, and consumers catch up when it is back; its outage shows in dependency_up.
    readiness.add("postgres", () => sql.run("SELECT 1"));
    readiness.addStartUpWork("postgres_pool", warmPool(sql, Math.min(WARM_POOL_CONNECTIONS, config.DATABASE_POOL_MAX)));
    readiness.watch("nats", () => bus.check());
    const verifier = new CachedTokenVerifier(
      new TokenVerifier({ jwksUri: config.AUTH_JWKS_URL, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE }),
    );
    return new Infrastructure(name, config, logger, metrics, readiness, sql, bus, outbox, verifier, grpcIdentity);
  } catch (error) {
    await sql.close();
    throw error;
  }
}

/**
 * Connections each service's pool keeps open, opened before it is ready: a request (the PATCH of a user's edit reads
 * and writes in one transaction, beside the permission cache's reads) finds them open instead of paying the
 * connection's set-up inside its budget.
 */
export const WARM_POOL_CONNECTIONS = 2;

/** Opens `connections` of the pool at once (each query holds one while the others open theirs); failures are the readiness check's to report. */
async function warmPool(sql: Sql, connections: number): Promise<void> {
  await Promise.all(Array.from({ length: connections }, () => sql.run("SELECT pg_sleep(0.01)").catch(() => undefined)));
}

/**
 * Connects to the service's database, runs the kit's and the service's pending migrations
 * (under the advisory lock of `runMigrations`) and closes the connections. Returns the names applied.
 */
function migrationTimeouts(config: BaseServiceConfig): MigrationTimeouts {
  return { lockWaitMs: config.MIGRATION_LOCK_WAIT_MS, ddlLockWaitMs: config.MIGRATION_DDL_LOCK_TIMEOUT_MS };
}

export async function migrateServiceDatabase(
  config: BaseServiceConfig,
  options: { migrations: Migration[]; logger: Logger },
): Promise<string[]> {
  const sql = await connectDatabase({
    serverUrl: config.DATABASE_URL,
    database: config.DATABASE_NAME,
    poolMax: 1,
    logger: options.logger,
  });
  try {
    return await runMigrations(sql, [...kitMigrations, ...options.migrations], options.logger, migrationTimeouts(config));
  } finally {
    await sql.close();
  }
}

/**
 * The first line of every service's `main.ts`. With MIGRATE_ONLY=true it migrates the database
 * and ends the process: exit code 0, or 1 after a `migration failed` log line. It reads only the
 * settings every service shares, so a migrating container needs DATABASE_URL but none of the
 * service's own secrets. Otherwise it returns at once and `main.ts` starts the service.
 */
export async function migrateAndExitIfRequested(name: ServiceName, migrations: Migration[], env = process.env): Promise<void> {
  const config = loadConfigOrExit(serviceConfigSchema(name), env);
  if (!config.MIGRATE_ONLY) return;
  const logger = createLogger(name, config.LOG_LEVEL);
  try {
    const applied = await migrateServiceDatabase(config, { migrations, logger });
    logger.info({ database: config.DATABASE_NAME, applied: applied.length }, "migrations done; exiting (MIGRATE_ONLY)");
    process.exit(0);
  } catch (error) {
    logger.fatal({ err: error, database: config.DATABASE_NAME }, "migration failed");
    process.exit(1);
  }
}

export interface ServeOptions {
  app: Express;
  grpc?: GrpcServer;
  subscriptions?: SubscriptionOptions[];
  /**
   * Background work that takes new work by itself (claims, consumers, sweeps): stopped at SIGTERM, alongside the
   * HTTP and gRPC drain, and given SHUTDOWN_TIMEOUT_MS to finish what it started.
   */
  onDrain?: () => Promise<void>;
  /** Clients and timers to close once nothing runs any more, before the bus and the database close. */
  onStop?: () => Promise<void>;
}

/** What a stop may take beyond SHUTDOWN_TIMEOUT_MS: the least time closing the clients, the outbox relay, NATS and Postgres gets. */
export const CLOSE_TIMEOUT_MS = 5_000;

/** Waits for `work` at most `timeoutMs`: true when it finished in time, false when it did not; its failure is thrown. */
async function finishWithin(work: Promise<unknown> | undefined, timeoutMs: number, onTimeout?: () => void): Promise<boolean> {
  if (!work) return true;
  let timer: NodeJS.Timeout | undefined;
  try {
    const finished = await Promise.race([
      work.then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
    if (!finished) onTimeout?.();
    return finished;
  } finally {
    clearTimeout(timer);
  }
}

export interface RunningService {
  name: string;
  httpPort: number;
  grpcPort: number;
  stop(): Promise<void>;
}

/** What a service's HTTP side adds to the kit's app: its routes and their description. */
export type ServiceHttpOptions = Omit<HttpAppOptions, "logger" | "metrics" | "readiness">;

export interface ListenOptions {
  /** Largest request head (request line and headers) accepted; Node's default (16 KiB) unless given. Larger is 431. */
  maxHeaderSize?: number;
  /** How long a client's keep-alive connection lives; `MAX_CONNECTION_AGE_MS` (as gRPC's) unless given. */
  maxConnectionAgeMs?: number;
}

export function listen(app: Express, host: string, port: number, options: ListenOptions = {}): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer({ maxHeaderSize: options.maxHeaderSize });
    // Before the app, so that a response the app sends at once already says whether its connection stays open.
    trackResponses(server, options.maxConnectionAgeMs ?? MAX_CONNECTION_AGE_MS);
    server.on("request", app);
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    server.on("clientError", answerClientError);
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

const CLIENT_ERRORS: Record<string, { status: number; title: string; code: string; detail: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    title: "Request Header Fields Too Large",
    code: "headers_too_large",
    detail: "The request's headers are larger than this server accepts.",
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    title: "Request Timeout",
    code: "request_timeout",
    detail: "The request took too long to arrive.",
  },
};
const MALFORMED = { status: 400, title: "Bad Request", code: "malformed_request", detail: "The request is not valid HTTP." };

/**
 * A request Node's parser refuses before any handler sees it (headers over the limit, broken
 * HTTP, too slow) is answered with problem+json like everything else, instead of Node's bare
 * status line, and the connection is closed.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const pending = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || pending?.headersSent) {
    socket.destroy();
    return;
  }
  const answer = CLIENT_ERRORS[error.code ?? ""] ?? MALFORMED;
  const body = JSON.stringify({
    type: `/problems/${answer.code}`,
    title: answer.title,
    status: answer.status,
    detail: answer.detail,
    code: answer.code,
    errors: [],
    request_id: randomUUID(),
  });
  socket.end(
    `HTTP/1.1 ${answer.status} ${answer.title}\r\ncontent-type: application/problem+json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

/** The responses not yet finished of each server `listen` made, and whether it is draining. */
const serverStates = new WeakMap<Server, { responses: Set<ServerResponse>; draining: boolean }>();

/**
 * Follows each response until it closes (the drain closes their connections after them), and closes a keep-alive
 * connection after the first response past `maxConnectionAgeMs`: a client's pool (the gateway's, an ingress's) then
 * opens a new one, which the Service may send to a pod added since, as gRPC's connection age does for its callers.
 */
function trackResponses(server: Server, maxConnectionAgeMs: number): void {
  const state = { responses: new Set<ServerResponse>(), draining: false };
  const openedAt = new WeakMap<object, number>();
  serverStates.set(server, state);
  server.on("connection", (socket) => openedAt.set(socket, performance.now()));
  server.on("request", (req, res: ServerResponse) => {
    const age = performance.now() - (openedAt.get(req.socket) ?? performance.now());
    if (state.draining || age > maxConnectionAgeMs) closeAfter(res);
    state.responses.add(res);
    res.once("close", () => state.responses.delete(res));
  });
}

/** The connection closes once this response is sent: `Connection: close` when its head is still to be sent. */
function closeAfter(res: ServerResponse): void {
  if (!res.headersSent) res.setHeader("connection", "close");
  else {
    // Taken now: the server detaches the socket from the response when it finishes.
    const socket = res.socket;
    res.once("finish", () => socket?.end());
  }
}

/**
 * Stops accepting connections, closes idle keep-alive connections at once, lets in-flight requests finish (each
 * connection closing after its answer, which tells the client not to send another on it), then closes what is
 * left after `timeoutMs`.
 */
export function closeHttp(server: Server, timeoutMs: number): Promise<void> {
  const state = serverStates.get(server);
  if (state) {
    state.draining = true;
    for (const res of state.responses) closeAfter(res);
  }
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
 * signal, or a shutdown that hangs, exits at once. Before `start`, the garbage of loading the code is
 * collected (collectStartupGarbage), while nothing listens.
 */
export async function runUntilSignalled(start: () => Promise<{ stop(): Promise<void> }>, logger: Logger): Promise<void> {
  // main.ts has loaded its code; nothing listens yet, so the pause delays no request.
  const collection = await collectStartupGarbage();
  if (collection) {
    const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
    logger.info(
      {
        heap_used_mib_before: mib(collection.usedBefore),
        heap_used_mib_after: mib(collection.usedAfter),
        duration_ms: Math.round(collection.durationMs),
      },
      "start-up garbage collected",
    );
  }
  let running: { stop(): Promise<void> };
  try {
    running = await start();
  } catch (error) {
    logger.fatal({ err: error }, "start-up failed");
    const exitCode = error instanceof SealedWithAnotherKeyError ? SealedWithAnotherKeyError.exitCode : 1;
    process.exitCode = exitCode;
    setTimeout(() => process.exit(exitCode), 100).unref();
    return;
  }
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(1);
    signalled = true;
    logger.info({ signal }, "shutting down");
    running
      .stop()
      .then(stopTracing)
      .then(
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
