import { ConfigError, loadConfig } from "@docex/kit/config";
import { webhookService } from "@docex/protos";
import { dropDatabase, grpcHealthStatus, probeRunningService } from "@docex/testkit";
import { expect } from "chai";
import { configSchema, startWebhookService } from "../src/service.js";
import { webhookTestEnv } from "./support/harness.js";

describe("webhook service lifecycle", () => {
  it("starts against real Postgres and NATS, reports ready over HTTP and gRPC, and stops cleanly", async () => {
    const config = configSchema.parse(webhookTestEnv());
    const running = await startWebhookService(config);
    try {
      const probe = await probeRunningService(running);
      expect(probe.ready).to.equal(true);
      expect(probe.grpcHealth).to.equal("SERVING");
      expect(probe.metrics).to.include("http_request_duration_seconds");
      expect(probe.metrics).to.include("webhook_deliveries_total");
      expect(probe.metrics).to.include("webhook_delivery_attempt_duration_seconds");
      expect(probe.metrics).to.include("webhook_deliveries_due");
      expect(probe.metrics).to.include("webhook_breakers");
      expect(probe.metrics).to.include("webhook_validation_duration_seconds");
      expect(await grpcHealthStatus(`127.0.0.1:${running.grpcPort}`, webhookService.serviceName)).to.equal("SERVING");
      expect(probe.unknownRoute.status).to.equal(404);
      expect(probe.unknownRoute.contentType).to.match(/^application\/problem\+json/);
    } finally {
      await running.stop();
      await dropDatabase(config.DATABASE_NAME);
    }
  });

  it("refuses to start without WEBHOOK_KEY_ENCRYPTION_KEY, or with one that is not 32 bytes, naming the variable", () => {
    const { WEBHOOK_KEY_ENCRYPTION_KEY: _, ...withoutKey } = webhookTestEnv();
    expect(() => loadConfig(configSchema, withoutKey)).to.throw(ConfigError, /WEBHOOK_KEY_ENCRYPTION_KEY: is required/);
    const short = { ...withoutKey, WEBHOOK_KEY_ENCRYPTION_KEY: Buffer.alloc(16).toString("base64") };
    expect(() => loadConfig(configSchema, short)).to.throw(
      ConfigError,
      /WEBHOOK_KEY_ENCRYPTION_KEY: must be the base64 encoding of exactly 32 bytes/,
    );
  });

  it("reads the retry schedule and refuses a malformed one", () => {
    expect(loadConfig(configSchema, webhookTestEnv({ WEBHOOK_RETRY_SCHEDULE: "5, 300,1800" })).WEBHOOK_RETRY_SCHEDULE).to.deep.equal([
      5, 300, 1800,
    ]);
    const { WEBHOOK_RETRY_SCHEDULE: _, ...defaults } = webhookTestEnv();
    expect(loadConfig(configSchema, defaults).WEBHOOK_RETRY_SCHEDULE).to.deep.equal([5, 300, 1800, 7200, 18000, 36000, 36000]);
    const { WEBHOOK_ALLOW_PRIVATE_TARGETS: __, ...publicOnly } = defaults;
    expect(loadConfig(configSchema, publicOnly).WEBHOOK_ALLOW_PRIVATE_TARGETS).to.equal(false);
    expect(() => loadConfig(configSchema, webhookTestEnv({ WEBHOOK_RETRY_SCHEDULE: "5,soon" }))).to.throw(
      ConfigError,
      /WEBHOOK_RETRY_SCHEDULE/,
    );
    expect(() =>
      loadConfig(configSchema, webhookTestEnv({ WEBHOOK_DELIVERY_TIMEOUT_MS: 10_000, WEBHOOK_DELIVERY_LEASE_MS: 5_000 })),
    ).to.throw(ConfigError, /WEBHOOK_DELIVERY_LEASE_MS/);
  });
});
