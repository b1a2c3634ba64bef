import express, { type ErrorRequestHandler, type Express as ExpressApp, type RequestHandler, type Router } from "express";
import { pinoHttp } from "pino-http";
import { type AccessTokenVerifier, authenticate, type Caller } from "../auth/token-verifier.js";
import { DomainError, NotFoundError, PayloadTooLargeError, UnsupportedMediaTypeError, UpstreamError, ValidationError } from "../errors.js";
import { type Logger, serializeError } from "../logger.js";
import type { Metrics } from "../metrics.js";
import { activeTraceIds } from "../tracing/spans.js";
import { isConcurrencyConflict, isTransientDatabaseFailure } from "../transient-failures.js";
import type { ClientAddressVerifier } from "./client-address.js";
import type { ApiDescription } from "./operations.js";
import { sendProblem } from "./problem.js";
import type { Readiness } from "./readiness.js";
import { requestIdFrom } from "./request-id.js";

declare global {
  namespace Express {
    interface Request {
      requestId: string;
      /** When the request arrived (epoch ms): deadlines of the work it asks for count from here. */
      receivedAt: number;
      /** Set by the authentication middleware once the access token is verified. */
      caller?: Caller;
      /**
       * The client's address: the gateway's signed `docex-client-address` (`ClientAddressVerifier`), else the
       * connection's peer. Never X-Forwarded-For, and not `req.ip`'s rules.
       */
      clientAddress: string;
    }
  }
}

export interface BodyLimitRule {
  method: string;
  path: RegExp;
  limit: string;
  /**
   * Checks the bearer token before a byte of the body is read (401 otherwise, body unread):
   * nobody without a token makes the service read and parse a large body. Required unless
   * `public` says the endpoint takes large bodies from anyone.
   */
  verifier?: AccessTokenVerifier;
  public?: true;
}

export interface HttpAppOptions {
  logger: Logger;
  metrics: Metrics;
  readiness: Readiness;
  /** Mounts the service's routes. */
  routes: (router: Router) => void;
  /** JSON body limit; API.md: 1 MiB unless an endpoint says otherwise. */
  bodyLimit?: string;
  /** Endpoints with a different body limit, such as `POST /api/v2/registers` (50 MiB). */
  bodyLimits?: BodyLimitRule[];
  /** The service's operations; published at `GET /openapi.json` for the gateway to merge. */
  api?: ApiDescription;
  /**
   * Endpoints that also take a non-JSON body (a file upload): such a body is neither refused (415) nor parsed here,
   * but left unread for the route to stream. A JSON body is parsed as everywhere.
   */
  streamedBodies?: { method: string; path: RegExp }[];
  /** Believes the gateway's signed client address; without it `req.clientAddress` is the connection's peer. */
  clientAddresses?: ClientAddressVerifier;
}

const METHODS_WITH_BODY = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The Express app every service and the gateway start from: request ids, JSON parsing with
 * limits, problem+json errors, metrics, health. It does not listen.
 */
export function createHttpApp(options: HttpAppOptions): ExpressApp {
  const { logger, metrics, readiness } = options;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // X-Forwarded-For is believed from nobody: any pod on the service network could send one. The gateway passes
  // the client's address in a header it signs (client-address.ts).
  app.set("trust proxy", false);
  const clientAddresses = options.clientAddresses;

  app.use((req, res, next) => {
    req.receivedAt = Date.now();
    req.clientAddress = clientAddresses ? clientAddresses.addressOf(req) : (req.socket.remoteAddress ?? "unknown");
    req.requestId = requestIdFrom(req.headers["x-request-id"]);
    res.setHeader("x-request-id", req.requestId);
    const started = process.hrtime.bigint();
    const trace = activeTraceIds();
    res.on("finish", () => {
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : "unmatched";
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.observeHttpRequest({ route, method: req.method, status_code: String(res.statusCode) }, seconds, trace);
    });
    next();
  });

  mountOperationalRoutes(app, readiness, metrics);
  const api = options.api;
  if (api) {
    app.get("/openapi.json", (_req, res) => {
      res.json(api.openApi());
    });
  }

  app.use(
    pinoHttp({
      logger,
      genReqId: (req) => (req as express.Request).requestId,
      customProps: (req) => ({ request_id: (req as express.Request).requestId }),
      serializers: {
        req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url.split("?")[0] }),
        res: (res: { statusCode: number }) => ({ status_code: res.statusCode }),
        err: serializeError,
      },
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? "error" : res.statusCode >= 400 ? "info" : "debug"),
    }),
  );

  app.use(refuseEncodedBodies);
  const streamed = options.streamedBodies ?? [];
  const isStreamed = (req: express.Request) =>
    streamed.some((rule) => rule.method === req.method && rule.path.test(req.path)) && !isJsonContentType(req.headers["content-type"]);
  app.use((req, res, next) => (isStreamed(req) ? next() : requireJsonBodies(req, res, next)));
  app.use(authenticateBeforeLargeBodies(options.bodyLimits ?? []));
  // inflate: false: a compressed body is refused (refuseEncodedBodies), never inflated.
  const defaultParser = express.json({ limit: options.bodyLimit ?? "1mb", inflate: false });
  const specialParsers = (options.bodyLimits ?? []).map((rule) => ({ rule, parser: express.json({ limit: rule.limit, inflate: false }) }));
  app.use((req, res, next) => {
    const special = specialParsers.find(({ rule }) => rule.method === req.method && rule.path.test(req.path));
    if (isStreamed(req)) return next();
    (special?.parser ?? defaultParser)(req, res, next);
  });

  const router = express.Router();
  options.routes(router);
  app.use(router);

  app.use((req, _res, next) => {
    next(new NotFoundError(`No route for ${req.method} ${req.path}.`, "route_not_found"));
  });
  app.use(problemErrorHandler(logger));
  return app;
}

/**
 * `/healthz` (the process runs), `/readyz` (it can take traffic; the dependencies it copes without are listed) and
 * `/metrics` (with `dependency_up` asked afresh), outside `/api/v2`.
 */
export function mountOperationalRoutes(app: ExpressApp, readiness: Readiness, metrics: Metrics): void {
  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", async (_req, res) => {
    const report = await readiness.report();
    res
      .status(report.ready ? 200 : 503)
      .json({ status: report.ready ? "ready" : "not_ready", checks: report.checks, dependencies: report.dependencies });
  });
  app.get("/metrics", async (_req, res) => {
    await readiness.dependencyReport();
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}

/**
 * 415 for a compressed body (any `Content-Encoding` but identity), before a byte of it is
 * read: 152 bytes of brotli inflate to 50 MB, so no request body is ever decompressed.
 */
export const refuseEncodedBodies: RequestHandler = (req, _res, next) => {
  const encoding = req.headers["content-encoding"];
  if (encoding === undefined || encoding.trim().toLowerCase() === "identity" || encoding.trim() === "") return next();
  next(
    new UnsupportedMediaTypeError(
      "Compressed request bodies are not accepted; send the body without Content-Encoding.",
      "unsupported_content_encoding",
    ),
  );
};

/** The rules with a verifier check the token before their (large) body is parsed. */
function authenticateBeforeLargeBodies(rules: BodyLimitRule[]): RequestHandler {
  const checks = rules.map((rule) => {
    if (!rule.verifier && !rule.public) {
      throw new Error(
        `The body limit of ${rule.method} ${rule.path} needs a verifier (the token is checked before the body is read) or public: true.`,
      );
    }
    return { rule, check: rule.verifier ? authenticate(rule.verifier) : undefined };
  });
  return (req, res, next) => {
    const found = checks.find(({ rule }) => rule.method === req.method && rule.path.test(req.path));
    if (!found?.check) return next();
    found.check(req, res, next);
  };
}

/** 415 for a body that is not JSON; bodies are JSON everywhere in this API. */
const requireJsonBodies: RequestHandler = (req, _res, next) => {
  if (!METHODS_WITH_BODY.has(req.method)) return next();
  const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
  if (!hasBody) return next();
  if (!isJsonContentType(req.headers["content-type"])) return next(new UnsupportedMediaTypeError());
  next();
};

function isJsonContentType(type: string | undefined): boolean {
  return /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(type ?? "");
}

interface BodyParserError {
  type?: string;
  status?: number;
}

export function problemErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const requestId = req.requestId ?? requestIdFrom(undefined);
    const parserError = error as BodyParserError;
    let translated: unknown = error;
    switch (parserError?.type) {
      case "entity.parse.failed":
        translated = new ValidationError("The request body is not valid JSON.", [], "malformed_json");
        break;
      case "entity.too.large":
        translated = new PayloadTooLargeError();
        break;
      case "encoding.unsupported":
      case "charset.unsupported":
        translated = new UnsupportedMediaTypeError("The request body's encoding is not supported; send UTF-8 JSON.");
        break;
      case "request.aborted":
        return;
    }
    if (isTransientDatabaseFailure(error)) {
      translated = new UpstreamError(503, "The database is briefly unavailable; try again.", "database_unavailable");
      res.setHeader("retry-after", "1");
    } else if (isConcurrencyConflict(error)) {
      // Postgres aborted the transaction for a concurrent one's sake: nothing was applied, and again will go through.
      translated = new UpstreamError(
        503,
        "Another request changed the same data at the same moment; nothing was changed. Try again.",
        "concurrent_change",
      );
      res.setHeader("retry-after", "1");
    }
    if (!(translated instanceof DomainError) || translated.status >= 500) {
      logger.error({ err: error, request_id: requestId }, "request failed");
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    // Refused before its body was read (401, 413, 415): close rather than read the rest of it.
    if (!req.complete) res.setHeader("connection", "close");
    sendProblem(res, translated, requestId);
  };
}
