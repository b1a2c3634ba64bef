import { randomUUID } from "node:crypto";
import { eventually, type TestEvent } from "@docex/testkit";
import { expect } from "chai";
import { type Reply, Stack, type UserApi } from "./support/stack.js";

type Fixture = Awaited<ReturnType<Stack["organization"]>>;
type Kind = "accounting" | "approval";

const ANY_DOCUMENT = { match: "all", rules: [] };

const ruleBody = (kind: Kind, name: string) =>
  kind === "accounting"
    ? {
        name,
        action: "apply_accounting_automation",
        params: { set: { contract: "C-ACME" } },
        conditions: { match: "all", rules: [{ field: "supplier_name", operator: "contains", value: "acme" }] },
      }
    : { name, action: "move_to_next_stage", params: {}, conditions: ANY_DOCUMENT };

/** A rule as configuration.changed shows it, from the rule the API answered. */
const stateOf = (rule: { name: string; action: string; params: unknown; conditions: unknown; position: number }) => ({
  name: rule.name,
  action: rule.action,
  params: rule.params,
  conditions: rule.conditions,
  position: rule.position,
});

describe("configuration.changed for every change of a queue's automation (real document and membership services in-process)", function () {
  this.timeout(60_000);
  let stack: Stack;
  let org: Fixture;
  let owner: UserApi;

  before(async () => {
    stack = await Stack.start();
    org = await stack.organization("audited");
    owner = org.owner;
  });
  after(async () => {
    await stack?.stop();
  });

  const rulesPath = (queueId: string, kind: Kind) =>
    `/queues/${queueId}/${kind === "accounting" ? "accounting-automation-rules" : "approval-automation"}`;
  const changesOf = (queueId: string) => stack.tap.ofType("configuration.changed", (event) => event.data.queue_id === queueId);

  /** The queue's configuration.changed events once `count` arrived and a moment passed in which no other did. */
  async function settled(queueId: string, count: number): Promise<TestEvent[]> {
    await eventually(() => (changesOf(queueId).length >= count ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const events = changesOf(queueId);
    expect(events, JSON.stringify(events.map((event) => event.data))).to.have.length(count);
    return events;
  }

  /** The one event the request with this reply caused. */
  function causedBy(events: TestEvent[], reply: Reply): TestEvent {
    const requestId = reply.headers.get("x-request-id");
    expect(requestId).to.be.a("string");
    const caused = events.filter((event) => event.request_id === requestId);
    expect(caused, `events of request ${requestId}`).to.have.length(1);
    return caused[0]!;
  }

  it("announces each switch and the thresholds with the setting before and after, naming the caller and the request", async () => {
    const queueId = await org.addQueue("switches announced");
    const supervisor = stack.automationApi(await org.invite("supervisor"));
    const fields = [{ key: "total_due", min_confidence: 80, required: true }];
    const accountingOn = await supervisor.patch(`/queues/${queueId}/accounting-automation`, { status: "enabled" });
    const rulesOn = await supervisor.patch(`/queues/${queueId}/automation-rules`, { status: "enabled" });
    const evaluationOn = await supervisor.patch(`/queues/${queueId}/extraction-evaluation`, { status: "enabled" });
    const thresholds = await supervisor.put(`/queues/${queueId}/extraction-evaluation`, { document_confidence: 90, fields });
    const accountingOff = await owner.patch(`/queues/${queueId}/accounting-automation`, { status: "disabled" });
    for (const reply of [accountingOn, rulesOn, evaluationOn, thresholds, accountingOff]) expect(reply.status).to.equal(200);

    const events = await settled(queueId, 5);
    const queueWide = { resource_id: null, queue_id: queueId, change: "updated" };
    const expected: Array<[Reply, string, Record<string, unknown>]> = [
      [
        accountingOn,
        supervisor.userId,
        { resource: "accounting_automation", ...queueWide, previous: { status: "disabled" }, current: { status: "enabled" } },
      ],
      [
        rulesOn,
        supervisor.userId,
        { resource: "automation_rules", ...queueWide, previous: { status: "disabled" }, current: { status: "enabled" } },
      ],
      [
        evaluationOn,
        supervisor.userId,
        {
          resource: "extraction_evaluation",
          ...queueWide,
          previous: { status: "disabled", document_confidence: null, fields: [] },
          current: { status: "enabled", document_confidence: null, fields: [] },
        },
      ],
      [
        thresholds,
        supervisor.userId,
        {
          resource: "extraction_evaluation",
          ...queueWide,
          previous: { status: "enabled", document_confidence: null, fields: [] },
          current: { status: "enabled", document_confidence: 90, fields },
        },
      ],
      [
        accountingOff,
        owner.userId,
        { resource: "accounting_automation", ...queueWide, previous: { status: "enabled" }, current: { status: "disabled" } },
      ],
    ];
    for (const [reply, actor, data] of expected) {
      const event = causedBy(events, reply);
      expect(event.organization_id).to.equal(org.organizationId);
      expect(event.actor_user_id).to.equal(actor);
      expect(event.data).to.deep.equal(data);
    }
  });

  for (const kind of ["accounting", "approval"] as const) {
    it(`announces creating, changing, reordering and deleting ${kind} rules with the rule (or the order) before and after`, async () => {
      const queueId = await org.addQueue(`${kind} rules announced`);
      const path = rulesPath(queueId, kind);
      const resource = `${kind}_automation_rule`;
      const first = await owner.post(path, ruleBody(kind, "first"));
      const second = await owner.post(path, ruleBody(kind, "second"));
      expect([first.status, second.status]).to.deep.equal([201, 201]);
      const [firstId, secondId] = [first.body.data.id as string, second.body.data.id as string];
      const renamed = await owner.patch(`${path}/${firstId}`, { name: "first, renamed" });
      expect(renamed.status).to.equal(200);
      const reordered = await owner.put(`${path}/order`, { rule_ids: [secondId, firstId] });
      expect(reordered.status).to.equal(200);
      const deleted = await owner.delete(`${path}/${firstId}`);
      expect(deleted.status).to.equal(204);

      const events = await settled(queueId, 5);
      for (const event of events) {
        expect(event.actor_user_id).to.equal(owner.userId);
        expect(event.organization_id).to.equal(org.organizationId);
      }
      const rule = { resource, queue_id: queueId };
      expect(causedBy(events, first).data).to.deep.equal({
        ...rule,
        resource_id: firstId,
        change: "created",
        previous: null,
        current: stateOf(first.body.data),
      });
      expect(causedBy(events, second).data).to.deep.include({ resource_id: secondId, change: "created", previous: null });
      expect(causedBy(events, renamed).data).to.deep.equal({
        ...rule,
        resource_id: firstId,
        change: "updated",
        previous: stateOf(first.body.data),
        current: { ...stateOf(first.body.data), name: "first, renamed" },
      });
      expect(causedBy(events, reordered).data).to.deep.equal({
        ...rule,
        resource_id: null,
        change: "reordered",
        previous: [firstId, secondId],
        current: [secondId, firstId],
      });
      expect(causedBy(events, deleted).data).to.deep.equal({
        ...rule,
        resource_id: firstId,
        change: "deleted",
        previous: { ...stateOf(first.body.data), name: "first, renamed", position: 2 },
        current: null,
      });
    });
  }

  it("announces nothing for a change that is refused (400, 403, 404, 409) or that leaves everything as it was", async () => {
    const queueId = await org.addQueue("refusals unannounced");
    const accounting = rulesPath(queueId, "accounting");
    const approval = rulesPath(queueId, "approval");
    const existing = await owner.post(accounting, ruleBody("accounting", "kept"));
    expect(existing.status).to.equal(201);
    const ruleId = existing.body.data.id as string;
    await settled(queueId, 1);
    // A queue full of approval rules, put there behind the service's back so that no event announces them.
    await stack.automationDatabase.run(
      `INSERT INTO rules (id, queue_id, organization_id, kind, name, action, params, conditions, position)
       SELECT gen_random_uuid(), $1, $2, 'approval', 'filler ' || n, 'move_to_next_stage', '{}'::jsonb, $3::jsonb, n
       FROM generate_series(1, 100) AS n`,
      [queueId, org.organizationId, JSON.stringify(ANY_DOCUMENT)],
    );
    const editor = stack.automationApi(await org.invite("editor"));

    const refused: Array<[number, () => Promise<Reply>]> = [
      [400, () => owner.patch(`/queues/${queueId}/accounting-automation`, { status: "on" })],
      [
        400,
        () =>
          owner.put(`/queues/${queueId}/extraction-evaluation`, {
            document_confidence: 90,
            fields: [{ key: "nope", min_confidence: 80, required: true }],
          }),
      ],
      [400, () => owner.post(accounting, { ...ruleBody("accounting", "bad"), params: { set: { no_such_field: "x" } } })],
      [400, () => owner.patch(`${accounting}/${ruleId}`, { conditions: { match: "all", rules: [{ field: "nope", operator: "exists" }] } })],
      [400, () => owner.put(`${accounting}/order`, { rule_ids: [ruleId, randomUUID()] })],
      [403, () => editor.patch(`/queues/${queueId}/automation-rules`, { status: "enabled" })],
      [403, () => editor.put(`/queues/${queueId}/extraction-evaluation`, { document_confidence: 90, fields: [] })],
      [403, () => editor.post(accounting, ruleBody("accounting", "editor's"))],
      [403, () => editor.patch(`${accounting}/${ruleId}`, { name: "editor's" })],
      [403, () => editor.delete(`${accounting}/${ruleId}`)],
      [404, () => owner.patch(`${accounting}/${randomUUID()}`, { name: "ghost" })],
      [404, () => owner.delete(`${accounting}/${randomUUID()}`)],
      [404, () => owner.delete(`${approval}/${ruleId}`)],
      [409, () => owner.post(approval, ruleBody("approval", "one too many"))],
    ];
    for (const [status, change] of refused) {
      const reply = await change();
      expect(reply.status, JSON.stringify(reply.body)).to.equal(status);
    }
    const unchanged = [
      await owner.patch(`/queues/${queueId}/automation-rules`, { status: "disabled" }),
      await owner.patch(`${accounting}/${ruleId}`, { name: "kept" }),
      await owner.put(`${accounting}/order`, { rule_ids: [ruleId] }),
    ];
    for (const reply of unchanged) expect(reply.status).to.equal(200);

    // A change after all of them: once it is announced, anything they had written to the outbox would be too.
    const marker = await owner.patch(`/queues/${queueId}/automation-rules`, { status: "enabled" });
    expect(marker.status).to.equal(200);
    const events = await settled(queueId, 2);
    expect(causedBy(events, existing).data.change).to.equal("created");
    expect(causedBy(events, marker).data).to.deep.include({ resource: "automation_rules", change: "updated" });
  });
});
