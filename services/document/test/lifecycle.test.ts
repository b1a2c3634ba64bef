import { dropDatabase, eventually, probeRunningService, testServiceConfig } from "@docex/testkit";
import { expect } from "chai";
import { configSchema, startDocumentService } from "../src/service.js";

describe("document service lifecycle", () => {
  it("starts against real Postgres and NATS, reports ready over HTTP and gRPC, and stops cleanly", async () => {
    const config = testServiceConfig("document", {}, configSchema);
    const running = await startDocumentService(config);
    try {
      // Ready once the automation-switch seed has looked at its table, a moment after start (a busy machine: longer).
      const probe = await eventually(async () => {
        const answer = await probeRunningService(running);
        return answer.ready ? answer : undefined;
      }, 10_000);
      expect(probe.ready).to.equal(true);
      expect(probe.grpcHealth).to.equal("SERVING");
      expect(probe.metrics).to.include("http_request_duration_seconds");
      expect(probe.metrics).to.include("document_validation_duration_seconds");
      expect(probe.unknownRoute.status).to.equal(404);
      expect(probe.unknownRoute.contentType).to.match(/^application\/problem\+json/);
    } finally {
      await running.stop();
      await dropDatabase(config.DATABASE_NAME);
    }
  });
});
