import { booleanFlag, port, SERVICE_NAMES, SERVICE_PORTS, type ServiceName, tracingConfigFields } from "@docex/kit/config";
import { z } from "zod";

const serviceUrl = (name: ServiceName) => z.url().default(`http://127.0.0.1:${SERVICE_PORTS[name].http}`);

export const gatewayConfigSchema = z
  .object({
    /** The interface the gateway listens on (containers set `0.0.0.0`). */
    HOST: z.string().default("127.0.0.1"),
    /** Where `/api/v2` (and the validation app at `/app`) is served. */
    GATEWAY_PORT: port.default(SERVICE_PORTS.gateway.http),
    /** The pino level: 2xx are logged at `debug`, 4xx at `info`, 5xx at `error`. */
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    ...tracingConfigFields,
    /** Base URL of the auth service, where its routes are proxied. */
    AUTH_URL: serviceUrl("auth"),
    /** Base URL of the membership service, as AUTH_URL. */
    MEMBERSHIP_URL: serviceUrl("membership"),
    /** Base URL of the document service, as AUTH_URL. */
    DOCUMENT_URL: serviceUrl("document"),
    /** Base URL of the automation service, as AUTH_URL. */
    AUTOMATION_URL: serviceUrl("automation"),
    /** Base URL of the learning service, as AUTH_URL. */
    LEARNING_URL: serviceUrl("learning"),
    /** Base URL of the register service, as AUTH_URL. */
    REGISTER_URL: serviceUrl("register"),
    /** Base URL of the webhook service, as AUTH_URL. */
    WEBHOOK_URL: serviceUrl("webhook"),
    /** Base URL of the extraction service, as AUTH_URL. */
    EXTRACTION_URL: serviceUrl("extraction"),
    /** Base URL of the audit service, as AUTH_URL. */
    AUDIT_URL: serviceUrl("audit"),
    /** Base URL of the intake service, as AUTH_URL. */
    INTAKE_URL: serviceUrl("intake"),
    /** The keys access tokens are checked against; defaults to the auth service's own JWKS endpoint under AUTH_URL. @default `${AUTH_URL}/api/v2/auth/.well-known/jwks.json` */
    AUTH_JWKS_URL: z.url().optional(),
    /** The `iss` every access token must carry. */
    JWT_ISSUER: z.string().min(1).default("docex"),
    /** The `aud` every access token must carry. */
    JWT_AUDIENCE: z.string().min(1).default("docex-api"),
    /** Requests per client address and minute; 0 turns the limit off. */
    GATEWAY_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(6000),
    /** Largest request head (request line and headers) accepted; larger is 431. Node's default, 16 KiB. */
    GATEWAY_MAX_HEADER_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024)
      .default(16 * 1024),
    /** Proxies in front of the gateway whose X-Forwarded-For is believed: comma-separated CIDRs or loopback/linklocal/uniquelocal. */
    GATEWAY_TRUSTED_PROXIES: z
      .string()
      .default("loopback")
      .transform((value) =>
        value
          .split(",")
          .map((entry) => entry.trim())
          .filter(Boolean),
      ),
    /**
     * The gateway's identity: a directory with `ca.crt`, `gateway.crt` and `gateway.key` of the services' CA. It signs the
     * client address it passes on, which the services believe from nobody else. Required unless GRPC_INSECURE=true.
     */
    GRPC_TLS_DIR: z.string().min(1).optional(),
    /** `true`: the client address goes to the services unsigned (development only, as for the services' gRPC). */
    GRPC_INSECURE: booleanFlag.default(false),
    /** The longest silence from a service before the answer is 504. */
    GATEWAY_UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000),
    /** How long in-flight requests may take to finish on SIGTERM. */
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(20_000),
  })
  .transform((config) => ({
    ...config,
    AUTH_JWKS_URL: config.AUTH_JWKS_URL ?? `${config.AUTH_URL.replace(/\/+$/, "")}/api/v2/auth/.well-known/jwks.json`,
  }));

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/** The base URL of each service, from its `<NAME>_URL` variable. */
export function upstreamUrlsOf(config: GatewayConfig): Record<ServiceName, string> {
  return Object.fromEntries(SERVICE_NAMES.map((name) => [name, config[`${name.toUpperCase() as Uppercase<ServiceName>}_URL`]])) as Record<
    ServiceName,
    string
  >;
}
