import { z } from "zod";
import { TRACE_PROTOCOLS } from "./tracing/settings.js";

/** Default ports of each process when it runs on one machine (`npm start`). */
export const SERVICE_PORTS = {
  gateway: { http: 8080, grpc: 0 },
  auth: { http: 8081, grpc: 9081 },
  membership: { http: 8082, grpc: 9082 },
  document: { http: 8083, grpc: 9083 },
  automation: { http: 8084, grpc: 9084 },
  learning: { http: 8085, grpc: 9085 },
  register: { http: 8086, grpc: 9086 },
  webhook: { http: 8087, grpc: 9087 },
  extraction: { http: 8088, grpc: 9088 },
  audit: { http: 8089, grpc: 9089 },
  intake: { http: 8090, grpc: 9090 },
} as const;

/**
 * V8 options every docex process runs with: the image's NODE_OPTIONS and `npm start`'s. Semi-spaces of 4 MiB
 * instead of V8's 16: idle, a process holds about 25 MiB less, and under the stack benchmark the CPU per request
 * did not move beyond the run-to-run spread (bench/REPORT.md, issue 19). Options given in NODE_OPTIONS come after
 * these, so they win.
 */
export const DOCEX_NODE_OPTIONS = "--max-semi-space-size=4";

export type ServiceName = Exclude<keyof typeof SERVICE_PORTS, "gateway">;
export const SERVICE_NAMES = Object.keys(SERVICE_PORTS).filter((name) => name !== "gateway") as ServiceName[];

export const port = z.coerce.number().int().min(0).max(65535);
export const booleanFlag = z.union([
  z.boolean(),
  z.enum(["true", "false", "1", "0"]).transform((value) => value === "true" || value === "1"),
]);

/** A duration setting in milliseconds: a whole number from `min` (0 by default) to `max` (a minute by default). */
export function milliseconds(fallback: number, { min = 0, max = 60_000 }: { min?: number; max?: number } = {}) {
  return z.coerce.number().int().min(min).max(max).default(fallback);
}

/** OpenTelemetry's rule for its variables: one set to the empty string is as good as unset. */
function unsetWhenEmpty<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === "" ? undefined : value), schema.optional());
}

/**
 * The standard OpenTelemetry variables, as the kit's tracing register reads them (tracing/register.ts, before any
 * module of the service loads): listed in every process's schema too, so that the schema names every setting the
 * process reads and a wrong value is refused at start with the variable's name. Tracing is off without an endpoint.
 */
export const tracingConfigFields = {
  /** Where traces go (OTLP over HTTP; the exporter adds `/v1/traces`). Unset: tracing is off and costs nothing. */
  OTEL_EXPORTER_OTLP_ENDPOINT: unsetWhenEmpty(z.url()),
  /** Protobuf (`=http/protobuf`, the default) or JSON (`=http/json`); anything else stops start-up. */
  OTEL_EXPORTER_OTLP_PROTOCOL: unsetWhenEmpty(z.enum(TRACE_PROTOCOLS)),
  /** Defaults to the process's own name (document, gateway, ...). */
  OTEL_SERVICE_NAME: unsetWhenEmpty(z.string()),
  /** The SDK's sampler; parentbased_always_on by default. `*traceidratio` samplers read OTEL_TRACES_SAMPLER_ARG. */
  OTEL_TRACES_SAMPLER: unsetWhenEmpty(
    z.enum(["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"]),
  ),
  /** `true`: no tracing, whatever the endpoint. */
  OTEL_SDK_DISABLED: unsetWhenEmpty(booleanFlag),
};

/** Settings every service reads; a service extends this with its own. */
export function serviceConfigSchema(service: ServiceName) {
  const ports = SERVICE_PORTS[service];
  const grpcAddress = (name: ServiceName) => z.string().min(1).default(`127.0.0.1:${SERVICE_PORTS[name].grpc}`);
  return z.object({
    /** The interface to listen on (containers set `0.0.0.0`). */
    HOST: z.string().default("127.0.0.1"),
    /** The HTTP port: the API, `/healthz`, `/readyz`, `/metrics`. @default the service's (`SERVICE_PORTS`) */
    PORT: port.default(ports.http),
    /** The gRPC port. @default the service's (`SERVICE_PORTS`) */
    GRPC_PORT: port.default(ports.grpc),
    /** The pino level; JSON lines on stdout. */
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    /** A Postgres server (the path is ignored): the user needs CREATEDB, as the service creates its own database. */
    DATABASE_URL: z.url().default("postgres://postgres@127.0.0.1:5432/postgres"),
    /** The service's own database, created if missing. @default `docex_<service>` */
    DATABASE_NAME: z
      .string()
      .regex(/^[a-z_][a-z0-9_]*$/)
      .default(`docex_${service}`),
    /** Connections in the pool. */
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
    /** `true`: run the migrations and exit, serving nothing (`migrateAndExitIfRequested`); Kubernetes' init container. */
    MIGRATE_ONLY: booleanFlag.default(false),
    /** `false`: start without migrating, and refuse to start while a migration is pending (an init container migrates). */
    MIGRATE_ON_START: booleanFlag.default(true),
    /** How long a migrator waits for another instance's migrations before it fails. */
    MIGRATION_LOCK_WAIT_MS: z.coerce.number().int().min(100).default(300_000),
    /** How long a migration's statement waits for a table lock (`lock_timeout`) before the migration fails. */
    MIGRATION_DDL_LOCK_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
    /** The NATS server. */
    NATS_URL: z.string().min(1).default("nats://127.0.0.1:4222"),
    /** The JetStream stream of the events. */
    NATS_STREAM: z
      .string()
      .regex(/^[A-Z][A-Z0-9_]*$/)
      .default("DOCEX"),
    /** The first token of the events' subjects. */
    NATS_SUBJECT_PREFIX: z
      .string()
      .regex(/^[a-z][a-z0-9_]*$/)
      .default("docex"),
    /** Replicas of the JetStream streams (and dead-letter stream) the services create; at most the number of NATS servers. */
    NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
    /** Events older than this leave the stream `DOCEX` (0: never); applied to an existing stream at start. */
    NATS_STREAM_MAX_AGE_HOURS: z.coerce.number().int().min(0).default(168),
    /** Size limit of the stream `DOCEX` in bytes; once full it refuses events, which wait in the outboxes. Unset: none. */
    NATS_STREAM_MAX_BYTES: z.coerce.number().int().min(1).optional(),
    /** As NATS_STREAM_MAX_AGE_HOURS, for the dead-letter stream: long enough to fix a cause and replay. */
    NATS_DLQ_MAX_AGE_HOURS: z.coerce.number().int().min(0).default(720),
    /** As NATS_STREAM_MAX_BYTES, for the dead-letter stream. */
    NATS_DLQ_MAX_BYTES: z.coerce.number().int().min(1).optional(),
    /** The token NATS asks clients for (nats.conf `authorization { token }`); unset: connect without one. */
    NATS_TOKEN: z.string().min(1).optional(),
    /**
     * The service's own NATS user and its password (nats.conf `authorization { users }`, generated from SERVICE_EVENTS):
     * NATS lets it publish and subscribe only to its own events. Unset: connect without a user (a development NATS).
     */
    NATS_USER: z
      .string()
      .regex(/^[a-z][a-z0-9_]*$/)
      .optional(),
    /** The password of NATS_USER (a secret). */
    NATS_PASSWORD: z.string().min(1).optional(),
    /** CA certificate that NATS's server certificate must chain to; set, the connection must be TLS. */
    NATS_TLS_CA_FILE: z.string().min(1).optional(),
    /** The `iss` every access token must carry (auth puts it there). */
    JWT_ISSUER: z.string().min(1).default("docex"),
    /** The `aud` every access token must carry. */
    JWT_AUDIENCE: z.string().min(1).default("docex-api"),
    /** The keys access tokens are verified with: auth's `/api/v2/auth/.well-known/jwks.json`. */
    AUTH_JWKS_URL: z.url().default(`http://127.0.0.1:${SERVICE_PORTS.auth.http}/api/v2/auth/.well-known/jwks.json`),
    /** The gRPC target of auth: calls are taken in turn by every address it names (`dns:///auth-grpc:9081`, `ipv4:127.0.0.1:9081,127.0.0.1:9091`). */
    AUTH_GRPC_ADDR: grpcAddress("auth"),
    /** The gRPC target of membership, as AUTH_GRPC_ADDR. */
    MEMBERSHIP_GRPC_ADDR: grpcAddress("membership"),
    /** The gRPC target of document, as AUTH_GRPC_ADDR. */
    DOCUMENT_GRPC_ADDR: grpcAddress("document"),
    /** The gRPC target of automation, as AUTH_GRPC_ADDR. */
    AUTOMATION_GRPC_ADDR: grpcAddress("automation"),
    /** The gRPC target of learning, as AUTH_GRPC_ADDR. */
    LEARNING_GRPC_ADDR: grpcAddress("learning"),
    /** The gRPC target of register, as AUTH_GRPC_ADDR. */
    REGISTER_GRPC_ADDR: grpcAddress("register"),
    /** The gRPC target of webhook, as AUTH_GRPC_ADDR. */
    WEBHOOK_GRPC_ADDR: grpcAddress("webhook"),
    /** Graceful shutdown budget: HTTP, gRPC and background work (`onDrain`) drain side by side within it; closing the connections then has 5 s. */
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(20_000),
    /**
     * Service identity for gRPC (mutual TLS): a directory with `ca.crt`, `<service>.crt` and `<service>.key`.
     * Required unless GRPC_INSECURE=true; `npm start` generates one in `.data/grpc-identity`.
     */
    GRPC_TLS_DIR: z.string().min(1).optional(),
    /** `true`: plaintext gRPC that identifies no caller (development only; logs a warning). */
    GRPC_INSECURE: booleanFlag.default(false),
    ...tracingConfigFields,
  });
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join("\n  ")}`);
    this.name = "ConfigError";
  }
}

/**
 * Reads the environment once through a schema. A bad or missing variable fails start-up
 * with a message naming it; secrets have no defaults, so they must be given.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) {
    const problems = problemsTogether(result.data, env);
    if (problems.length > 0) throw new ConfigError(problems);
    return result.data;
  }
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join(".") || "(environment)";
    const given = issue.path.length === 1 ? env[String(issue.path[0])] : undefined;
    return given === undefined ? `${name}: ${issue.message} (not set)` : `${name}: ${issue.message}`;
  });
  throw new ConfigError(problems);
}

/**
 * Settings each valid alone that every process refuses together. Checked after the schema rather than in it: a
 * refined zod object can no longer be extended, and every service extends the kit's schema.
 */
function problemsTogether(config: unknown, env: NodeJS.ProcessEnv): string[] {
  const insecure = (config as { GRPC_INSECURE?: unknown } | null)?.GRPC_INSECURE === true;
  if (insecure && env.NODE_ENV?.trim().toLowerCase() === "production") {
    return [
      "GRPC_INSECURE: must not be true with NODE_ENV=production: plaintext gRPC identifies no caller and checks no caller list; " +
        "give GRPC_TLS_DIR (the service's certificate, key and CA) instead",
    ];
  }
  return [];
}

/** `loadConfig` for a composition root: a bad environment prints what is wrong and exits 1. */
export function loadConfigOrExit<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  try {
    return loadConfig(schema, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
