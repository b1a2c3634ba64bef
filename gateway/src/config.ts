import { booleanFlag, port, SERVICE_NAMES, SERVICE_PORTS, type ServiceName, tracingConfigFields } from "@docex/kit";
import { z } from "zod";

const serviceUrl = (name: ServiceName) => z.url().default(`http://127.0.0.1:${SERVICE_PORTS[name].http}`);

export const gatewayConfigSchema = z
  .object({
    HOST: z.string().default("127.0.0.1"),
    GATEWAY_PORT: port.default(SERVICE_PORTS.gateway.http),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    ...tracingConfigFields,
    AUTH_URL: serviceUrl("auth"),
    MEMBERSHIP_URL: serviceUrl("membership"),
    DOCUMENT_URL: serviceUrl("document"),
    AUTOMATION_URL: serviceUrl("automation"),
    LEARNING_URL: serviceUrl("learning"),
    REGISTER_URL: serviceUrl("register"),
    WEBHOOK_URL: serviceUrl("webhook"),
    EXTRACTION_URL: serviceUrl("extraction"),
    AUDIT_URL: serviceUrl("audit"),
    INTAKE_URL: serviceUrl("intake"),
    /** Defaults to the auth service's own JWKS endpoint under AUTH_URL. */
    AUTH_JWKS_URL: z.url().optional(),
    JWT_ISSUER: z.string().min(1).default("docex"),
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
     * The gateway's identity: a directory with ca.crt, gateway.crt and gateway.key of the services' CA. It signs the
     * client address it passes on, which the services believe from nobody else. Required unless GRPC_INSECURE=true.
     */
    GRPC_TLS_DIR: z.string().min(1).optional(),
    /** `true`: the client address goes to the services unsigned (development only, as for the services' gRPC). */
    GRPC_INSECURE: booleanFlag.default(false),
    GATEWAY_UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000),
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
