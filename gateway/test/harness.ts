import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { authenticate, CachedTokenVerifier, TokenVerifier } from "@docex/kit/auth";
import { SERVICE_NAMES, type ServiceName } from "@docex/kit/config";
import { ClientAddressSigner, ClientAddressVerifier, createHttpApp, Readiness } from "@docex/kit/http";
import { createLogger } from "@docex/kit/logger";
import { Metrics } from "@docex/kit/metrics";
import { closeHttp, listen } from "@docex/kit/runtime";
import { freePort, type TestIssuer, testGrpcIdentity } from "@docex/testkit";
import { createGateway, type GatewayDeps } from "../src/app.js";
import { UpstreamPool } from "../src/upstream-pool.js";

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/**
 * A service as the gateway sees one: kit's `createHttpApp` with `authenticate`, echoing
 * what it received. `received` lists every request that reached it, before any check.
 */
export class EchoService {
  readonly received: ReceivedRequest[] = [];
  /** Delay of `GET /api/v2/documents/{id}`, to play a slow service. */
  slowDelayMs = 0;

  private constructor(private readonly server: Server) {}

  static async start(issuer: TestIssuer, options: { jwksCooldownMs?: number } = {}): Promise<EchoService> {
    const verifier = new TokenVerifier({
      jwksUri: issuer.jwksUri,
      issuer: issuer.issuer,
      audience: issuer.audience,
      jwksCooldownMs: options.jwksCooldownMs,
    });
    let service: EchoService | undefined;
    const app = createHttpApp({
      logger: createLogger("echo", "silent"),
      metrics: new Metrics("echo", { defaultMetrics: false }),
      readiness: new Readiness(),
      // As the auth service would: it believes the client address only when the gateway signed it for auth.
      clientAddresses: new ClientAddressVerifier(testGrpcIdentity("auth"), "auth"),
      bodyLimits: [{ method: "POST", path: /^\/api\/v2\/registers$/, limit: "50mb", verifier }],
      routes: (router) => {
        router.get("/api/v2/queues/:queue_id", authenticate(verifier), (req, res) => {
          res.json({ data: { queue_id: req.params.queue_id, caller: req.caller, headers: req.headers, request_id: req.requestId } });
        });
        router.post("/api/v2/queues", authenticate(verifier), (req, res) => {
          res.status(201).json({ data: { body: req.body, user_id: req.caller?.userId } });
        });
        router.post("/api/v2/registers", authenticate(verifier), (req, res) => {
          res.status(201).json({ data: { items: Array.isArray(req.body) ? req.body.length : 0 } });
        });
        router.post("/api/v2/auth/login", (req, res) => {
          res.json({ data: { body: req.body, authorization: req.headers.authorization ?? null, client_address: req.clientAddress } });
        });
        router.get("/api/v2/workspaces/:workspace_id", (req) => {
          req.socket.destroy();
        });
        router.get("/api/v2/documents/:document_id", authenticate(verifier), async (req, res) => {
          await new Promise((resolve) => setTimeout(resolve, service?.slowDelayMs ?? 0));
          if (!res.destroyed) res.json({ data: { id: req.params.document_id } });
        });
      },
    });
    const server = createServer((req, res) => {
      service?.received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
      app(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    service = new EchoService(server);
    return service;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await closeHttp(this.server, 500);
  }
}

export interface RunningGateway {
  url: string;
  metrics: Metrics;
  readiness: Readiness;
  stop(): Promise<void>;
}

export interface GatewayTestOptions {
  issuer: TestIssuer;
  /** Every service's URL; `urls` overrides single ones. */
  upstreamUrl: string;
  urls?: Partial<Record<ServiceName, string>>;
  rateLimitPerMinute?: number;
  upstreamTimeoutMs?: number;
  /** Least time between JWKS refetches caused by unknown kids; kit's default (30 s) unless given. */
  jwksCooldownMs?: number;
  /** The server's header limit; Node's default unless given. */
  maxHeaderSize?: number;
  configure?: (deps: GatewayDeps) => void;
}

/** The gateway in-process on 127.0.0.1, port 0. */
export async function startGateway(options: GatewayTestOptions): Promise<RunningGateway> {
  const urls = Object.fromEntries(SERVICE_NAMES.map((name) => [name, options.urls?.[name] ?? options.upstreamUrl])) as Record<
    ServiceName,
    string
  >;
  const upstreams = new UpstreamPool(urls);
  const deps: GatewayDeps = {
    logger: createLogger("gateway", process.env.TEST_LOG_LEVEL ?? "silent"),
    metrics: new Metrics("gateway", { defaultMetrics: false }),
    readiness: new Readiness(),
    verifier: new CachedTokenVerifier(
      new TokenVerifier({
        jwksUri: options.issuer.jwksUri,
        issuer: options.issuer.issuer,
        audience: options.issuer.audience,
        jwksCooldownMs: options.jwksCooldownMs,
      }),
    ),
    upstreams,
    rateLimitPerMinute: options.rateLimitPerMinute ?? 0,
    upstreamTimeoutMs: options.upstreamTimeoutMs ?? 5_000,
    clientAddresses: new ClientAddressSigner(testGrpcIdentity("gateway")),
  };
  options.configure?.(deps);
  const server = await listen(createGateway(deps), "127.0.0.1", 0, { maxHeaderSize: options.maxHeaderSize });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    metrics: deps.metrics,
    readiness: deps.readiness,
    async stop() {
      await closeHttp(server, 500);
      upstreams.destroy();
    },
  };
}

/** A URL on 127.0.0.1 where nothing listens: a port that was just free. */
export async function closedPortUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}
