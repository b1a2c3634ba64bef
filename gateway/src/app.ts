import { type AccessTokenVerifier, requireBearerToken } from "@docex/kit/auth";
import type { ServiceName } from "@docex/kit/config";
import { MethodNotAllowedError, NotFoundError, PayloadTooLargeError, RateLimitedError } from "@docex/kit/errors";
import {
  type ClientAddressSigner,
  mountOperationalRoutes,
  problemErrorHandler,
  type Readiness,
  refuseEncodedBodies,
  requestIdFrom,
  sendProblem,
} from "@docex/kit/http";
import type { Logger } from "@docex/kit/logger";
import type { Metrics } from "@docex/kit/metrics";
import { activeTraceIds } from "@docex/kit/tracing";
import express, { type Express, type Request, type RequestHandler, type Response } from "express";
import { type RateLimitInfo, rateLimit } from "express-rate-limit";
import { apiDocsRouter } from "./api-docs.js";
import { OpenApiAggregator } from "./openapi.js";
import { RouteMatcher } from "./route-matcher.js";
import { DEFAULT_BODY_LIMIT_BYTES, ROUTES, type RouteDefinition } from "./routes.js";
import { createServiceProxy } from "./service-proxy.js";
import type { UpstreamPool } from "./upstream-pool.js";
import { defaultWebAppDirectory, webAppRouter } from "./web-app.js";

export interface GatewayDeps {
  logger: Logger;
  metrics: Metrics;
  readiness: Readiness;
  /** Verifies access tokens: kit's `TokenVerifier` against the auth service's JWKS, usually behind a `CachedTokenVerifier`. */
  verifier: AccessTokenVerifier;
  upstreams: UpstreamPool;
  /** Requests per client address and minute; 0 turns the limit off. */
  rateLimitPerMinute: number;
  /** Longest silence from a service before the gateway answers 504. */
  upstreamTimeoutMs: number;
  /** Proxies whose X-Forwarded-For is believed (CIDRs, or loopback / linklocal / uniquelocal); loopback unless given. */
  trustedProxies?: string[];
  /** Signs the client address passed on to the services with the gateway's identity (they believe no other). */
  clientAddresses: ClientAddressSigner;
  /** Merges the services' OpenAPI parts; one is made from `upstreams` unless given. */
  openApi?: OpenApiAggregator;
  /** The route table; `ROUTES` unless a test narrows it. */
  routes?: readonly RouteDefinition[];
  /** The built validation workspace served at /app/; the `@docex/web` workspace's dist unless given (null: none). */
  webAppDirectory?: string | null;
}

interface GatewayLocals {
  /** The route template, the label of metrics and access logs. */
  routeTemplate?: string;
  route?: RouteDefinition;
}

const localsOf = (res: Response) => res.locals as GatewayLocals;

/**
 * The gateway app: request ids, health and metrics, a rate limit per client address, the
 * route table, body limits, the access-token check of non-public routes, and a streaming
 * proxy to the owning service. It does not listen.
 *
 * Built from kit's pieces rather than `createHttpApp`, which parses JSON bodies: the gateway
 * must stream them to the service untouched.
 */
export function createGateway(deps: GatewayDeps): Express {
  const { logger, metrics, readiness } = deps;
  const matcher = new RouteMatcher(deps.routes ?? ROUTES);
  const proxies = new Map<ServiceName, RequestHandler>(
    deps.upstreams.all().map((upstream) => [
      upstream.service,
      createServiceProxy({
        upstream,
        timeoutMs: deps.upstreamTimeoutMs,
        logger,
        clientAddresses: deps.clientAddresses,
        bodyLimitOf: (req) => localsOf(req.res as Response).route?.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
      }),
    ]),
  );

  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", deps.trustedProxies?.length ? deps.trustedProxies : ["loopback"]);

  app.use(beginRequest(logger, metrics));

  mountOperationalRoutes(app, readiness, metrics);
  app.use(apiDocsRouter(deps.openApi ?? new OpenApiAggregator(deps.upstreams, logger)));
  app.use(webAppRouter(deps.webAppDirectory === undefined ? defaultWebAppDirectory() : (deps.webAppDirectory ?? undefined)));

  if (deps.rateLimitPerMinute > 0) app.use(limitRatePerClient(deps.rateLimitPerMinute));
  app.use(resolveRoute(matcher));
  app.use(refuseEncodedBodies);
  app.use(proxyToService(deps.verifier, proxies));
  app.use(problemErrorHandler(logger));
  return app;
}

/**
 * Request id (kept from the client when sane, else generated; echoed and forwarded), the
 * removal of client-sent `x-user-*` headers, the duration metric and the access log line.
 */
function beginRequest(logger: Logger, metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    req.requestId = requestIdFrom(req.headers["x-request-id"]);
    req.headers["x-request-id"] = req.requestId;
    res.setHeader("x-request-id", req.requestId);
    for (const name of Object.keys(req.headers)) {
      if (name.startsWith("x-user-")) delete req.headers[name];
    }
    const started = process.hrtime.bigint();
    const trace = activeTraceIds();
    res.on("finish", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = localsOf(res).routeTemplate ?? (req.route?.path ? String(req.route.path) : "unmatched");
      const status = res.statusCode;
      metrics.observeHttpRequest({ route, method: req.method, status_code: String(status) }, seconds, trace);
      const level = status >= 500 ? "error" : status >= 400 ? "info" : "debug";
      if (logger.isLevelEnabled(level)) {
        logger[level](
          { request_id: req.requestId, method: req.method, route, status_code: status, duration_ms: Math.round(seconds * 1e4) / 10 },
          "request completed",
        );
      }
    });
    next();
  };
}

function limitRatePerClient(perMinute: number): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: "draft-7",
    // One IPv6 client holds a whole /64: counting per address would give it 2^64 budgets.
    ipv6Subnet: 64,
    legacyHeaders: false,
    handler: (req, res) => {
      const resetTime = (req as Request & { rateLimit?: RateLimitInfo }).rateLimit?.resetTime;
      const seconds = resetTime ? Math.ceil((resetTime.getTime() - Date.now()) / 1000) : 60;
      sendProblem(res, new RateLimitedError(Math.max(1, seconds)), req.requestId);
    },
  });
}

/** Unknown paths (and everything outside /api/v2) are 404, known paths with another method 405; neither is proxied. */
function resolveRoute(matcher: RouteMatcher): RequestHandler {
  return (req, res, next) => {
    const match = matcher.match(req.method, req.path);
    switch (match.kind) {
      case "not_found":
        return next(new NotFoundError(`No route for ${req.method} ${req.path}.`, "route_not_found"));
      case "method_not_allowed":
        localsOf(res).routeTemplate = match.template;
        res.setHeader("allow", match.allow.join(", "));
        return next(new MethodNotAllowedError(match.allow));
      case "found":
        localsOf(res).routeTemplate = match.template;
        localsOf(res).route = match.route;
        return next();
    }
  };
}

/**
 * A declared body over the route's limit is 413 before a byte goes upstream (a chunked one is counted while it
 * streams); non-public routes need a valid access token before anything reaches a service, which verifies it again.
 * One middleware rather than three: each Express layer costs every proxied request.
 */
function proxyToService(verifier: GatewayDeps["verifier"], proxies: Map<ServiceName, RequestHandler>): RequestHandler {
  return (req, res, next) => {
    const route = localsOf(res).route!;
    const proxy = proxies.get(route.service);
    if (!proxy) return next(new Error(`No proxy for the ${route.service} service.`));
    const declared = req.headers["content-length"];
    if (declared !== undefined && Number(declared) > route.bodyLimitBytes) return next(new PayloadTooLargeError());
    if (route.access === "public") return proxy(req, res, next);
    let token: string;
    try {
      token = requireBearerToken(req.headers.authorization);
    } catch (error) {
      return next(error);
    }
    verifier.verify(token).then((caller) => {
      req.caller = caller;
      proxy(req, res, next);
    }, next);
  };
}
