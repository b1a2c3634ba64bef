import { dropDatabase, probeRunningService, testServiceConfig } from "@docex/testkit";
import { expect } from "chai";
import { configSchema, startMembershipService } from "../src/service.js";

describe("membership service lifecycle", () => {
  it("starts against real Postgres and NATS, reports ready over HTTP and gRPC, and stops cleanly", async () => {
    const config = testServiceConfig("membership", {}, configSchema);
    const running = await startMembershipService(config);
    try {
      const probe = await probeRunningService(running);
      expect(probe.ready).to.equal(true);
      expect(probe.grpcHealth).to.equal("SERVING");
      expect(probe.metrics).to.include("http_request_duration_seconds");
      expect(probe.unknownRoute.status).to.equal(404);
      expect(probe.unknownRoute.contentType).to.match(/^application\/problem\+json/);
    } finally {
      await running.stop();
      await dropDatabase(config.DATABASE_NAME);
    }
  });
});
