import { randomUUID } from "node:crypto";
import { ANY_SERVICE, createLogger, GrpcServer } from "@docex/kit";
import { type AutomationHandlers, automationService } from "@docex/protos";
import { testGrpcIdentity } from "@docex/testkit";
import { expect } from "chai";
import { Harness, queueFixture } from "./support/harness.js";

/** An automation service over gRPC on 127.0.0.1 that answers settings, or takes its time. */
class AutomationDouble {
  delayMs = 0;
  calls = 0;
  private constructor(
    private readonly server: GrpcServer,
    readonly address: string,
  ) {}

  static async start(): Promise<AutomationDouble> {
    const server = new GrpcServer(createLogger("automation-double", "silent"), { identity: testGrpcIdentity("automation") });
    let double: AutomationDouble | undefined;
    const handlers: AutomationHandlers = {
      async GetQueueAutomation() {
        double!.calls += 1;
        if (double!.delayMs) await new Promise((resolve) => setTimeout(resolve, double!.delayMs));
        return {
          accounting_automation: "enabled",
          automation_rules: "disabled",
          extraction_evaluation_status: "enabled",
          document_confidence: 90,
          fields_json: JSON.stringify([{ key: "total_due", min_confidence: 80, required: true }]),
        };
      },
    };
    server.addService(automationService.definition, automationService.serviceName, handlers, ANY_SERVICE);
    double = new AutomationDouble(server, `127.0.0.1:${await server.listen("127.0.0.1", 0)}`);
    return double;
  }

  async stop(): Promise<void> {
    await this.server.shutdown(500);
  }
}

describe("the automation fields of a queue (membership and automation are in-process test doubles)", function () {
  this.timeout(30_000);
  let h: Harness;
  let automation: AutomationDouble;

  before(async () => {
    automation = await AutomationDouble.start();
    h = await Harness.start({ automationAddress: automation.address });
  });
  after(async () => {
    await h?.stop();
    await automation?.stop();
  });

  it("shows what the automation service answers", async () => {
    const { owner, queueId } = await queueFixture(h, "auto");
    const queue = (await owner.get(`/queues/${queueId}`)).body.data;
    expect(queue).to.deep.include({
      accounting_automation: "enabled",
      automation_rules: "disabled",
      extraction_evaluation: {
        status: "enabled",
        document_confidence: 90,
        fields: [{ key: "total_due", min_confidence: 80, required: true }],
      },
    });
  });

  it("shows the defaults within the deadline when automation is slow, and at once once its breaker opens", async () => {
    const { owner, queueId } = await queueFixture(h, "slow");
    automation.delayMs = 2_000;
    const timings: number[] = [];
    for (let attempt = 0; attempt < 6; attempt += 1) {
      const started = Date.now();
      const queue = (await owner.get(`/queues/${queueId}`)).body.data;
      timings.push(Date.now() - started);
      expect(queue).to.deep.include({
        accounting_automation: "disabled",
        extraction_evaluation: { status: "disabled", document_confidence: null, fields: [] },
      });
    }
    for (const timing of timings) expect(timing).to.be.below(h.config.DOCUMENT_AUTOMATION_DEADLINE_MS + 200);
    const callsWhileOpen = automation.calls;
    const started = Date.now();
    await owner.get(`/queues/${queueId}`);
    expect(Date.now() - started).to.be.below(100);
    expect(automation.calls).to.equal(callsWhileOpen);
    automation.delayMs = 0;
  });

  it("still answers 404 for an unknown queue without asking automation", async () => {
    const { owner } = await queueFixture(h, "unknown");
    const before = automation.calls;
    expect((await owner.get(`/queues/${randomUUID()}`)).status).to.equal(404);
    expect(automation.calls).to.equal(before);
  });
});
