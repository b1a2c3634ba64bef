import { randomUUID } from "node:crypto";
import { createEvent, type EventData } from "@docex/events";
import { openDatabase, type Sql } from "@docex/kit/db";
import { ANY_SERVICE, GrpcServer } from "@docex/kit/grpc";
import { createLogger } from "@docex/kit/logger";
import { type AutomationHandlers, automationService } from "@docex/protos";
import { eventually, testGrpcIdentity } from "@docex/testkit";
import { expect } from "chai";
import { automationClient } from "../src/clients/automation.js";
import { AutomationSwitchSeed } from "../src/domain/automation-switch-seed.js";
import { AutomationSwitchStore } from "../src/store/automation-switch-store.js";
import { Harness, queueFixture } from "./support/harness.js";

/** An automation service over gRPC on 127.0.0.1 that answers settings, or fails while told to. */
class AutomationDouble {
  failing = false;
  readonly asked: string[] = [];
  private constructor(
    private readonly server: GrpcServer,
    readonly address: string,
  ) {}

  static async start(): Promise<AutomationDouble> {
    const server = new GrpcServer(createLogger("automation-double", "silent"), { identity: testGrpcIdentity("automation") });
    let double: AutomationDouble | undefined;
    const handlers: AutomationHandlers = {
      async GetQueueAutomation(request) {
        if (double!.failing) throw new Error("automation is having a bad day");
        double!.asked.push(request.queue_id);
        return {
          accounting_automation: "enabled",
          automation_rules: "disabled",
          extraction_evaluation_status: "enabled",
          document_confidence: 90,
          fields_json: JSON.stringify([{ key: "total_due", min_confidence: 80, required: true }]),
        };
      },
      // Not asked here: no queue of these tests has automation_rules on.
      async PlanApprovalRoute() {
        throw new Error("PlanApprovalRoute is not part of these tests");
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

describe("the automation fields of a queue (document's projection of automation's configuration.changed)", function () {
  this.timeout(30_000);
  let h: Harness;
  let automation: AutomationDouble;
  let database: Sql;

  before(async () => {
    automation = await AutomationDouble.start();
    h = await Harness.start({ automationAddress: automation.address });
    const url = new URL(h.config.DATABASE_URL);
    url.pathname = `/${h.config.DATABASE_NAME}`;
    database = await openDatabase(url.toString(), { logger: createLogger("document-test", "silent") });
  });
  after(async () => {
    await database?.close();
    await h?.stop();
    await automation?.stop();
  });

  /** configuration.changed as automation publishes it for a switch of `queueId`. */
  function switchChanged(
    organizationId: string,
    queueId: string,
    resource: "accounting_automation" | "automation_rules" | "extraction_evaluation",
    current: unknown,
    occurredAt: Date,
  ) {
    const data: EventData<"configuration.changed"> = {
      resource,
      resource_id: null,
      queue_id: queueId,
      change: "updated",
      previous: null,
      current,
    };
    return { ...createEvent("configuration.changed", { organization_id: organizationId, data }), occurred_at: occurredAt.toISOString() };
  }

  const automationFields = (queue: Record<string, unknown>) => ({
    accounting_automation: queue.accounting_automation,
    automation_rules: queue.automation_rules,
    extraction_evaluation: queue.extraction_evaluation,
  });

  it("shows the defaults for a queue automation has announced nothing of, without asking automation", async () => {
    const { owner, queueId } = await queueFixture(h, "defaults");
    const queue = (await owner.get(`/queues/${queueId}`)).body.data;
    expect(automationFields(queue)).to.deep.equal({
      accounting_automation: "disabled",
      automation_rules: "disabled",
      extraction_evaluation: { status: "disabled", document_confidence: null, fields: [] },
    });
    expect(automation.asked).to.not.include(queueId);
  });

  it("shows what automation announced, eventually, and answers while automation is down", async () => {
    const { organization, owner, queueId } = await queueFixture(h, "announced");
    const now = new Date();
    await h.events.publish(switchChanged(organization.id, queueId, "accounting_automation", { status: "enabled" }, now));
    await h.events.publish(
      switchChanged(
        organization.id,
        queueId,
        "extraction_evaluation",
        { status: "enabled", document_confidence: 95, fields: [{ key: "iban", min_confidence: 70, required: false }] },
        now,
      ),
    );
    automation.failing = true;
    try {
      const queue = await eventually(async () => {
        const shown = (await owner.get(`/queues/${queueId}`)).body.data;
        return shown.extraction_evaluation.status === "enabled" && shown.accounting_automation === "enabled" ? shown : undefined;
      });
      expect(automationFields(queue)).to.deep.equal({
        accounting_automation: "enabled",
        automation_rules: "disabled",
        extraction_evaluation: {
          status: "enabled",
          document_confidence: 95,
          fields: [{ key: "iban", min_confidence: 70, required: false }],
        },
      });
    } finally {
      automation.failing = false;
    }
  });

  it("changes nothing for a redelivered event, and never lets an older event overwrite a newer one", async () => {
    const { organization, owner, queueId } = await queueFixture(h, "ordered");
    const t0 = new Date(Date.now() - 60_000);
    const t1 = new Date(Date.now() - 30_000);
    const newer = switchChanged(organization.id, queueId, "accounting_automation", { status: "enabled" }, t1);
    await h.events.publish(newer);
    await eventually(async () =>
      (await owner.get(`/queues/${queueId}`)).body.data.accounting_automation === "enabled" ? true : undefined,
    );

    // The same event again (as a redelivery: its own id, so the stream does not drop it), then an older one.
    await h.events.publish({ ...newer, id: randomUUID() });
    await h.events.publish(switchChanged(organization.id, queueId, "accounting_automation", { status: "disabled" }, t0));
    // A later event on another switch marks that the two before it were consumed.
    await h.events.publish(switchChanged(organization.id, queueId, "automation_rules", { status: "enabled" }, new Date()));
    await eventually(async () => ((await owner.get(`/queues/${queueId}`)).body.data.automation_rules === "enabled" ? true : undefined));
    const rows = await database.rows<{ resource: string; changed_at: Date }>(
      "SELECT resource, changed_at FROM automation_switches WHERE queue_id = $1 ORDER BY resource",
      [queueId],
    );
    expect(rows.map((row) => row.resource)).to.deep.equal(["accounting_automation", "automation_rules"]);
    expect(rows[0]!.changed_at.toISOString()).to.equal(t1.toISOString());
    expect((await owner.get(`/queues/${queueId}`)).body.data.accounting_automation).to.equal("enabled");

    // And a newer event wins.
    await h.events.publish(switchChanged(organization.id, queueId, "accounting_automation", { status: "disabled" }, new Date()));
    await eventually(async () =>
      (await owner.get(`/queues/${queueId}`)).body.data.accounting_automation === "disabled" ? true : undefined,
    );
  });

  it("ignores configuration changes that are not a queue's switches", async () => {
    const { organization, owner, queueId } = await queueFixture(h, "others");
    const rule = { ...switchChanged(organization.id, queueId, "accounting_automation", { status: "enabled" }, new Date()) };
    rule.data = { ...rule.data, resource: "accounting_automation_rule", resource_id: randomUUID() };
    await h.events.publish(rule);
    await h.events.publish(switchChanged(organization.id, queueId, "automation_rules", { status: "enabled" }, new Date()));
    await eventually(async () => ((await owner.get(`/queues/${queueId}`)).body.data.automation_rules === "enabled" ? true : undefined));
    expect((await owner.get(`/queues/${queueId}`)).body.data.accounting_automation).to.equal("disabled");
  });

  describe("the one-time seed of queues that predate the projection", () => {
    const logger = createLogger("seed", "silent");
    let store: AutomationSwitchStore;
    let source: ReturnType<typeof automationClient>;

    before(() => {
      store = new AutomationSwitchStore(database);
      source = automationClient(automation.address, { identity: testGrpcIdentity("document"), deadlineMs: 1_000 });
    });
    after(() => source?.close());

    const listed = async (queueId: string) =>
      (await database.rows("SELECT 1 FROM automation_switch_seeds WHERE queue_id = $1", [queueId])).length > 0;

    it("asks automation once for each listed queue, retrying while it fails, and then shows its answer", async () => {
      const { owner, queueId } = await queueFixture(h, "seeded");
      await database.run("INSERT INTO automation_switch_seeds (queue_id) VALUES ($1)", [queueId]);
      automation.failing = true;
      const seed = new AutomationSwitchSeed(store, source, logger, { retryMs: 50, batchSize: 10, marginMs: 60_000 });
      seed.start();
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(seed.done).to.equal(false);
        expect(await listed(queueId)).to.equal(true);
        automation.failing = false;
        await eventually(() => (seed.done ? true : undefined));
      } finally {
        automation.failing = false;
        await seed.stop();
      }
      expect(await listed(queueId)).to.equal(false);
      expect(automationFields((await owner.get(`/queues/${queueId}`)).body.data)).to.deep.equal({
        accounting_automation: "enabled",
        automation_rules: "disabled",
        extraction_evaluation: {
          status: "enabled",
          document_confidence: 90,
          fields: [{ key: "total_due", min_confidence: 80, required: true }],
        },
      });

      const again = new AutomationSwitchSeed(store, source, logger, { retryMs: 50, batchSize: 10, marginMs: 60_000 });
      const asked = automation.asked.length;
      again.start();
      await eventually(() => (again.done ? true : undefined));
      await again.stop();
      expect(automation.asked.length).to.equal(asked);
    });

    it("keeps an event newer than the seed's answer, and lets the answer replace older ones", async () => {
      const { organization, owner, queueId } = await queueFixture(h, "seed-race");
      await h.events.publish(switchChanged(organization.id, queueId, "automation_rules", { status: "enabled" }, new Date()));
      await h.events.publish(
        switchChanged(organization.id, queueId, "accounting_automation", { status: "disabled" }, new Date(Date.now() - 3_600_000)),
      );
      await eventually(async () => ((await owner.get(`/queues/${queueId}`)).body.data.automation_rules === "enabled" ? true : undefined));
      await database.run("INSERT INTO automation_switch_seeds (queue_id) VALUES ($1)", [queueId]);
      const seed = new AutomationSwitchSeed(store, source, logger, { retryMs: 50, batchSize: 10, marginMs: 60_000 });
      seed.start();
      await eventually(() => (seed.done ? true : undefined));
      await seed.stop();
      const shown = (await owner.get(`/queues/${queueId}`)).body.data;
      // automation_rules: the event (now) is newer than the answer (dated a minute back); the rest: the answer.
      expect(automationFields(shown)).to.deep.include({ accounting_automation: "enabled", automation_rules: "enabled" });
      expect(shown.extraction_evaluation.document_confidence).to.equal(90);
    });
  });

  it("still answers 404 for an unknown queue", async () => {
    const { owner } = await queueFixture(h, "unknown");
    expect((await owner.get(`/queues/${randomUUID()}`)).status).to.equal(404);
  });
});
