import type { ClientRequest } from "node:http";
import { parse as legacyUrlParse } from "node:url";
import { type DomainError, PayloadTooLargeError, UpstreamError } from "@docex/kit/errors";
import {
  CLIENT_ADDRESS_HEADER,
  CLIENT_ADDRESS_PROOF_HEADER,
  type ClientAddressSigner,
  GATEWAY_CERTIFICATE_HEADER,
  sendProblem,
} from "@docex/kit/http";
import type { Logger } from "@docex/kit/logger";
import type { Request, RequestHandler, Response } from "express";
import { createProxyMiddleware, type Options, type Plugin } from "http-proxy-middleware";
import { passTraceContext } from "./trace-headers.js";
import type { Upstream } from "./upstream-pool.js";

export interface ServiceProxyOptions {
  upstream: Upstream;
  /** Longest silence from the service before the gateway answers 504. */
  timeoutMs: number;
  logger: Logger;
  /** The client's address (`req.ip`, read through the trusted proxies) goes to the service signed by these. */
  clientAddresses: ClientAddressSigner;
  /** Largest body of this request; enforced while streaming when no `content-length` says it up front. */
  bodyLimitOf: (req: Request) => number;
}

/** Why a proxied request failed, when the gateway itself cut it short. */
const cutShort = new WeakMap<Request, "timeout" | "too_large">();

const UNREACHABLE = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "EADDRNOTAVAIL"]);
const TIMED_OUT = new Set(["ETIMEDOUT", "ESOCKETTIMEDOUT"]);

/**
 * A request target that `url.parse` returns unchanged as its path: it starts with one `/` (not `///`) and holds
 * visible ASCII but `#`, `@` and `\`. http-proxy rebuilds the outgoing path with `url.parse`, which on Node 24
 * walks the stack on every call from a dependency (for a deprecation warning); such a target is forwarded as
 * received instead (`toProxy`), with the same result.
 */
const PLAIN_TARGET = /^\/(?!\/\/)[!-"$-?A-[\]-~]*$/;

/**
 * Until `url.parse` has emitted its deprecation warning (DEP0169) once, Node 24 walks the stack on every call to
 * decide whether the caller sits in node_modules (a dependency's call never warns): 4.4 µs a call against 0.44.
 * http-proxy-middleware parses every request's target that way to match its path filter. One call from here, with
 * deprecation warnings silenced for it, settles the check; docex's own code never calls `url.parse`.
 */
function settleUrlParseDeprecation(): void {
  const silenced = process.noDeprecation;
  process.noDeprecation = true;
  try {
    legacyUrlParse("/");
  } finally {
    process.noDeprecation = silenced;
  }
}

/**
 * A streaming reverse proxy to one service: the body is piped, never parsed, and failures
 * of the service become problem+json with the request id (503 unreachable, 504 too slow,
 * 502 anything else).
 */
export function createServiceProxy(options: ServiceProxyOptions): RequestHandler {
  const { upstream, logger } = options;
  settleUrlParseDeprecation();
  const events: Plugin<Request, Response> = (proxyServer) => {
    proxyServer.on("proxyReq", (proxyReq, req, res) => {
      res.on("error", ignoreResponseError);
      passClientAddress(proxyReq, req, upstream.service, options.clientAddresses);
      passTraceContext(proxyReq);
      proxyReq.once("timeout", () => cutShort.set(req, "timeout"));
      if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] !== undefined) {
        limitStreamedBody(req, proxyReq, options.bodyLimitOf(req));
      }
    });
    proxyServer.on("proxyRes", (proxyRes, _req, res) => {
      // A client that leaves mid-response must not leave the service's response paused on a pooled socket.
      res.once("close", () => {
        if (!res.writableEnded) proxyRes.destroy();
      });
    });
    proxyServer.on("error", (error, req, res) => {
      const failure = upstreamFailureOf(error as NodeJS.ErrnoException, cutShort.get(req));
      logger.warn({ err: error, request_id: req.requestId, service: upstream.service, status: failure.status }, "proxied request failed");
      if (!isResponse(res)) return;
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (cutShort.get(req) === "too_large") {
        // The rest of the body is drained, not parsed, and the connection is not reused.
        req.resume();
        res.setHeader("connection", "close");
      }
      sendProblem(res, failure, req.requestId);
    });
  };
  const proxyOptions: Options<Request, Response> = {
    // Parsed once here, not per request (http-proxy parses a string target on every call).
    target: new URL(upstream.url),
    agent: upstream.agent,
    changeOrigin: true,
    // The client address goes in the gateway's signed header (passClientAddress), not in X-Forwarded-For.
    xfwd: false,
    proxyTimeout: options.timeoutMs,
    // The default plugins log through a no-op logger yet build a URL per response; `events` keeps what they guard.
    ejectPlugins: true,
    plugins: [events],
  };
  const asReceived = createProxyMiddleware<Request, Response>({ ...proxyOptions, toProxy: true });
  const parsed = createProxyMiddleware<Request, Response>(proxyOptions);
  return (req, res, next) => {
    (PLAIN_TARGET.test(req.url) ? asReceived : parsed)(req, res, next).catch(next);
  };
}

/** Headers about addresses a client may send: none goes on, so that nobody behind the gateway can be misled by one. */
const CLIENT_SENT_ADDRESS_HEADERS = [
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-real-ip",
  "forwarded",
  CLIENT_ADDRESS_HEADER,
  CLIENT_ADDRESS_PROOF_HEADER,
  GATEWAY_CERTIFICATE_HEADER,
];

/** The client's address as the gateway read it (`req.ip`, through its trusted proxies), signed for this service. */
function passClientAddress(proxyReq: ClientRequest, req: Request, service: string, signer: ClientAddressSigner): void {
  for (const name of CLIENT_SENT_ADDRESS_HEADERS) proxyReq.removeHeader(name);
  const address = req.ip ?? req.socket.remoteAddress;
  if (address === undefined) return;
  for (const [name, value] of signer.headersFor(service, address)) proxyReq.setHeader(name, value);
}

/** The client's connection failed; there is no one left to answer, and an unheard `error` would end the process. */
function ignoreResponseError(): void {}

export function upstreamFailureOf(error: NodeJS.ErrnoException, reason: "timeout" | "too_large" | undefined): DomainError {
  if (reason === "too_large") return new PayloadTooLargeError();
  if (reason === "timeout" || TIMED_OUT.has(error.code ?? "")) {
    return new UpstreamError(504, "The service behind this endpoint did not answer in time.", "gateway_timeout");
  }
  if (UNREACHABLE.has(error.code ?? "")) {
    return new UpstreamError(503, "The service behind this endpoint is unavailable; try again shortly.", "service_unavailable");
  }
  return new UpstreamError(502, "The service behind this endpoint failed to answer properly.", "bad_gateway");
}

/** A chunked body cannot be judged by its header; count it as it passes and cut it off past the limit. */
function limitStreamedBody(req: Request, proxyReq: ClientRequest, limit: number): void {
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received <= limit) return;
    req.off("data", count);
    cutShort.set(req, "too_large");
    proxyReq.destroy(Object.assign(new Error("The request body exceeds the limit."), { code: "EBODYTOOLARGE" }));
  };
  req.on("data", count);
}

function isResponse(res: unknown): res is Response {
  return typeof (res as Response | undefined)?.writeHead === "function";
}
