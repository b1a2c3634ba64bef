import type { AddressInfo } from "node:net";
import { CachedTokenVerifier, TokenVerifier } from "@docex/kit/auth";
import { loadConfigOrExit } from "@docex/kit/config";
import { grpcIdentityFromConfig } from "@docex/kit/grpc";
import { ClientAddressSigner, GATEWAY_IDENTITY, Readiness } from "@docex/kit/http";
import { createLogger } from "@docex/kit/logger";
import { Metrics } from "@docex/kit/metrics";
import { closeHttp, listen, runUntilSignalled } from "@docex/kit/runtime";
import { createGateway } from "./app.js";
import { gatewayConfigSchema, upstreamUrlsOf } from "./config.js";
import { jwksAnswers } from "./jwks-check.js";
import { UpstreamPool } from "./upstream-pool.js";

const config = loadConfigOrExit(gatewayConfigSchema);
const logger = createLogger("gateway", config.LOG_LEVEL);

await runUntilSignalled(async () => {
  const metrics = new Metrics("gateway");
  const readiness = new Readiness(metrics);
  // Not a readiness check: with auth away, tokens signed by the keys already fetched still verify, and what needs
  // auth answers 503. The outage shows in dependency_up{dependency="auth_jwks"}.
  readiness.watch("auth_jwks", () => jwksAnswers(config.AUTH_JWKS_URL));
  const verifier = new CachedTokenVerifier(
    new TokenVerifier({ jwksUri: config.AUTH_JWKS_URL, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE }),
  );
  const upstreams = new UpstreamPool(upstreamUrlsOf(config));
  const clientAddresses = new ClientAddressSigner(grpcIdentityFromConfig(GATEWAY_IDENTITY, config, logger));
  const app = createGateway({
    logger,
    metrics,
    readiness,
    verifier,
    upstreams,
    rateLimitPerMinute: config.GATEWAY_RATE_LIMIT_PER_MINUTE,
    upstreamTimeoutMs: config.GATEWAY_UPSTREAM_TIMEOUT_MS,
    trustedProxies: config.GATEWAY_TRUSTED_PROXIES,
    clientAddresses,
  });
  const server = await listen(app, config.HOST, config.GATEWAY_PORT, { maxHeaderSize: config.GATEWAY_MAX_HEADER_BYTES });
  logger.info({ http_port: (server.address() as AddressInfo).port, upstreams: upstreamUrlsOf(config) }, "gateway started");
  return {
    async stop() {
      readiness.drain();
      await closeHttp(server, config.SHUTDOWN_TIMEOUT_MS);
      upstreams.destroy();
      logger.info("gateway stopped");
    },
  };
}, logger);
