import { randomUUID } from "node:crypto";
import { createEvent } from "@docex/events";
import { ValidationError } from "@docex/kit/errors";
import { createAutomationClient } from "@docex/protos";
import { eventually, testGrpcIdentity } from "@docex/testkit";
import { expect } from "chai";
import { Stack, type UserApi } from "./support/stack.js";

type Fixture = Awaited<ReturnType<Stack["organization"]>>;

const accountingRule = (overrides: Record<string, unknown> = {}) => ({
  name: "Acme contract",
  action: "apply_accounting_automation",
  params: { set: { contract: "C-ACME" } },
  conditions: { match: "all", rules: [{ field: "supplier_name", operator: "contains", value: "acme" }] },
  ...overrides,
});

describe("automation endpoints (real document and membership services in-process)", function () {
  this.timeout(60_000);
  let stack: Stack;
  let org: Fixture;
  let owner: UserApi;

  before(async () => {
    stack = await Stack.start();
    org = await stack.organization("endpoints");
    owner = org.owner;
  });
  after(async () => {
    await stack?.stop();
  });

  const rulesPath = (queueId: string, kind: "accounting" | "approval") =>
    `/queues/${queueId}/${kind === "accounting" ? "accounting-automation-rules" : "approval-automation"}`;
  const listRules = async (queueId: string, kind: "accounting" | "approval") =>
    (await owner.get(rulesPath(queueId, kind))).body.data as Array<{ id: string; name: string; position: number }>;

  describe("switches and extraction evaluation", () => {
    it("shows the defaults for a queue never configured, through the document service and over gRPC", async () => {
      const queue = (await org.ownerDocuments.get(`/queues/${org.queueId}`)).body.data;
      expect(queue).to.deep.include({
        accounting_automation: "disabled",
        automation_rules: "disabled",
        extraction_evaluation: { status: "disabled", document_confidence: null, fields: [] },
      });
      const client = createAutomationClient(`127.0.0.1:${stack.automation.grpcPort}`, { identity: testGrpcIdentity("document") });
      try {
        expect(await client.getQueueAutomation({ queue_id: randomUUID() })).to.deep.equal({
          accounting_automation: "disabled",
          automation_rules: "disabled",
          extraction_evaluation_status: "disabled",
          document_confidence: 0,
          fields_json: "[]",
        });
        const refused = await client.getQueueAutomation({ queue_id: "not-a-uuid" }).catch((error: unknown) => error);
        expect(refused).to.be.instanceOf(ValidationError);
      } finally {
        client.close();
      }
    });

    it("PATCHes each switch and answers the queue's QueueWithAnnotationSchemaDto, the same the document service then shows", async () => {
      const accounting = await owner.patch(`/queues/${org.queueId}/accounting-automation`, { status: "enabled" });
      expect(accounting.status).to.equal(200);
      expect(accounting.body.data).to.include({
        id: org.queueId,
        organization_id: org.organizationId,
        accounting_automation: "enabled",
        automation_rules: "disabled",
      });
      expect(accounting.body.data.annotation_schema.map((field: { key: string }) => field.key)).to.include("total_due");

      const rules = await owner.patch(`/queues/${org.queueHumanizedId}/automation-rules`, { status: "enabled" });
      expect(rules.status).to.equal(200);
      expect(rules.body.data).to.include({ accounting_automation: "enabled", automation_rules: "enabled" });

      const evaluation = await owner.patch(`/queues/${org.queueId}/extraction-evaluation`, { status: "enabled" });
      expect(evaluation.status).to.equal(200);
      expect(evaluation.body.data.extraction_evaluation).to.deep.equal({ status: "enabled", document_confidence: null, fields: [] });

      // The document service follows the switches from automation's configuration.changed: it shows them shortly.
      const shown = await eventually(async () => {
        const queue = (await org.ownerDocuments.get(`/queues/${org.queueId}`)).body.data;
        return queue.extraction_evaluation.status === "enabled" && queue.automation_rules === "enabled" ? queue : undefined;
      });
      expect(shown).to.deep.equal(evaluation.body.data);

      const off = await owner.patch(`/queues/${org.queueId}/extraction-evaluation`, { status: "disabled" });
      expect(off.body.data.extraction_evaluation.status).to.equal("disabled");
    });

    it("refuses a switch body that is not {status: enabled|disabled} (400)", async () => {
      for (const body of [{ status: "on" }, {}, { status: "enabled", extra: true }]) {
        const reply = await owner.patch(`/queues/${org.queueId}/automation-rules`, body);
        expect(reply.status, JSON.stringify(body)).to.equal(400);
        expect(reply.headers.get("content-type")).to.match(/^application\/problem\+json/);
      }
    });

    it("PUT extraction-evaluation stores the thresholds (a table column is a key too) and answers {status, document_confidence, fields}", async () => {
      const fields = [
        { key: "total_due", min_confidence: 80, required: true },
        { key: "activity", min_confidence: 60, required: false },
      ];
      const reply = await owner.put(`/queues/${org.queueId}/extraction-evaluation`, { document_confidence: 90, fields });
      expect(reply.status).to.equal(200);
      expect(reply.body.data).to.deep.equal({ status: "disabled", document_confidence: 90, fields });
      const shown = await eventually(async () => {
        const queue = (await org.ownerDocuments.get(`/queues/${org.queueId}`)).body.data;
        return queue.extraction_evaluation.document_confidence === 90 ? queue : undefined;
      });
      expect(shown.extraction_evaluation).to.deep.equal({ status: "disabled", document_confidence: 90, fields });
    });

    it("refuses confidence 75, an unknown field key, a repeated key, a missing fields array and out-of-range min_confidence, storing nothing", async () => {
      const before = (await org.ownerDocuments.get(`/queues/${org.queueId}`)).body.data.extraction_evaluation;
      const cases: Array<[unknown, string]> = [
        [{ document_confidence: 75, fields: [] }, "document_confidence"],
        [{ document_confidence: 90, fields: [{ key: "no_such_field", min_confidence: 80, required: true }] }, "fields.0.key"],
        [
          {
            document_confidence: 90,
            fields: [
              { key: "iban", min_confidence: 80, required: true },
              { key: "iban", min_confidence: 90, required: false },
            ],
          },
          "fields.1.key",
        ],
        [{ document_confidence: 90 }, "fields"],
        [{ document_confidence: 90, fields: [{ key: "iban", min_confidence: 40, required: true }] }, "fields.0.min_confidence"],
        [{ document_confidence: 90, fields: [{ key: "iban", min_confidence: 80 }] }, "fields.0.required"],
      ];
      for (const [body, path] of cases) {
        const reply = await owner.put(`/queues/${org.queueId}/extraction-evaluation`, body);
        expect(reply.status, JSON.stringify(body)).to.equal(400);
        expect(reply.body.errors.map((error: { path: string }) => error.path)).to.include(path);
      }
      const after = (await org.ownerDocuments.get(`/queues/${org.queueId}`)).body.data.extraction_evaluation;
      expect(after).to.deep.equal(before);
    });
  });

  describe("accounting rules", () => {
    it("creates rules at the end (201, Location), lists them in order, patches and deletes them, closing the gap", async () => {
      const queueId = await org.addQueue("accounting crud");
      const first = await owner.post(rulesPath(queueId, "accounting"), accountingRule({ name: "first" }));
      expect(first.status).to.equal(201);
      expect(first.headers.get("location")).to.equal(`/api/v2/queues/${queueId}/accounting-automation-rules/${first.body.data.id}`);
      expect(first.body.data).to.include({
        queue_id: queueId,
        kind: "accounting",
        name: "first",
        action: "apply_accounting_automation",
        position: 1,
      });
      expect(first.body.data.params).to.deep.equal({ set: { contract: "C-ACME" } });
      expect(first.body.data.conditions).to.deep.equal(accountingRule().conditions);
      const second = await owner.post(
        rulesPath(queueId, "accounting"),
        accountingRule({ name: "second", conditions: { match: "any", rules: [] } }),
      );
      const third = await owner.post(
        rulesPath(queueId, "accounting"),
        accountingRule({ name: "third", params: { set: { total_due: "1 234,50", due_date: "31.12.2024" } } }),
      );
      expect([second.body.data.position, third.body.data.position]).to.deep.equal([2, 3]);

      const listed = await owner.get(rulesPath(queueId, "accounting"));
      expect(listed.body.data.map((rule: { name: string }) => rule.name)).to.deep.equal(["first", "second", "third"]);
      expect(listed.body.pagination).to.deep.equal({ page: 1, page_size: 20, total: 3, total_pages: 1 });
      const secondPage = await owner.get(`${rulesPath(queueId, "accounting")}?page=2&page_size=2`);
      expect(secondPage.body.data.map((rule: { name: string }) => rule.name)).to.deep.equal(["third"]);

      const patched = await owner.patch(`${rulesPath(queueId, "accounting")}/${second.body.data.id}`, {
        name: "second, renamed",
        params: { set: { iban: "CZ6508000000192000145399" } },
      });
      expect(patched.status).to.equal(200);
      expect(patched.body.data).to.include({ name: "second, renamed", position: 2 });
      expect(patched.body.data.params).to.deep.equal({ set: { iban: "CZ6508000000192000145399" } });
      expect(patched.body.data.conditions).to.deep.equal({ match: "any", rules: [] });

      expect((await owner.delete(`${rulesPath(queueId, "accounting")}/${first.body.data.id}`)).status).to.equal(204);
      expect((await owner.delete(`${rulesPath(queueId, "accounting")}/${first.body.data.id}`)).status).to.equal(404);
      const after = await listRules(queueId, "accounting");
      expect(after.map((rule) => [rule.name, rule.position])).to.deep.equal([
        ["second, renamed", 1],
        ["third", 2],
      ]);
    });

    it("reorders with a permutation; anything else is 400 and nothing moves", async () => {
      const queueId = await org.addQueue("accounting order");
      const ids: string[] = [];
      for (const name of ["a", "b", "c"])
        ids.push((await owner.post(rulesPath(queueId, "accounting"), accountingRule({ name }))).body.data.id);
      const [a, b, c] = ids as [string, string, string];

      const reordered = await owner.put(`${rulesPath(queueId, "accounting")}/order`, { rule_ids: [c, a, b] });
      expect(reordered.status).to.equal(200);
      expect(reordered.body.data.map((rule: { name: string; position: number }) => [rule.name, rule.position])).to.deep.equal([
        ["c", 1],
        ["a", 2],
        ["b", 3],
      ]);

      const otherQueue = await org.addQueue("accounting order other");
      const foreign = (await owner.post(rulesPath(otherQueue, "accounting"), accountingRule())).body.data.id;
      for (const ruleIds of [
        [c, a],
        [c, a, b, b],
        [c, a, foreign],
        [c, a, b, foreign],
        [c, a, randomUUID()],
        ["nope", a, b],
      ]) {
        const reply = await owner.put(`${rulesPath(queueId, "accounting")}/order`, { rule_ids: ruleIds });
        expect(reply.status, JSON.stringify(ruleIds)).to.equal(400);
      }
      expect((await owner.put(`${rulesPath(queueId, "accounting")}/order`, {})).status).to.equal(400);
      expect((await listRules(queueId, "accounting")).map((rule) => rule.name)).to.deep.equal(["c", "a", "b"]);
    });

    it("refuses an unknown action, a condition on a missing field and other misfits with 400 naming each, storing nothing", async () => {
      const queueId = await org.addQueue("accounting refusals");
      const cases: Array<[Record<string, unknown>, string[]]> = [
        [accountingRule({ action: "assign_approvers" }), ["action"]],
        [accountingRule({ action: "make_coffee" }), ["action"]],
        [
          accountingRule({ conditions: { match: "all", rules: [{ field: "no_such_field", operator: "eq", value: "x" }] } }),
          ["conditions.rules.0.field"],
        ],
        [accountingRule({ params: { set: { no_such_field: "x" } } }), ["params.set.no_such_field"]],
        [accountingRule({ params: { set: {} } }), ["params.set"]],
        [accountingRule({ params: { set: { total_due: "a lot" } } }), ["params.set.total_due"]],
        [accountingRule({ params: { set: { due_date: "31.02.2024" } } }), ["params.set.due_date"]],
        [accountingRule({ params: { set: { activity: "x" } } }), ["params.set.activity"]],
        [accountingRule({ params: { set: { line_items: "x" } } }), ["params.set.line_items"]],
        [accountingRule({ params: { put: { contract: "x" } } }), ["params"]],
        [
          accountingRule({
            conditions: {
              match: "all",
              rules: [
                { field: "supplier_name", operator: "gt", value: "a" },
                { field: "total_due", operator: "gte", value: "100" },
                { field: "due_date", operator: "lt", value: "2024-02-30" },
                { field: "iban", operator: "exists", value: "x" },
                { field: "iban", operator: "eq" },
                { field: "line_items", operator: "eq", value: "x" },
              ],
            },
          }),
          [
            "conditions.rules.0.operator",
            "conditions.rules.1.value",
            "conditions.rules.2.value",
            "conditions.rules.3.value",
            "conditions.rules.4.value",
            "conditions.rules.5.operator",
          ],
        ],
        [accountingRule({ conditions: { match: "some", rules: [] } }), ["conditions.match"]],
        [
          accountingRule({ conditions: { match: "all", rules: [{ field: "iban", operator: "like", value: "x" }] } }),
          ["conditions.rules.0.operator"],
        ],
        [accountingRule({ conditions: undefined }), ["conditions"]],
        [accountingRule({ name: "" }), ["name"]],
        [{ ...accountingRule(), position: 1 }, [""]],
      ];
      for (const [body, paths] of cases) {
        const reply = await owner.post(rulesPath(queueId, "accounting"), body);
        expect(reply.status, JSON.stringify(body)).to.equal(400);
        const reported = reply.body.errors.map((error: { path: string }) => error.path);
        for (const path of paths) expect(reported, JSON.stringify(body)).to.include(path);
      }
      expect(await listRules(queueId, "accounting")).to.deep.equal([]);

      const rule = (await owner.post(rulesPath(queueId, "accounting"), accountingRule())).body.data;
      const badPatch = await owner.patch(`${rulesPath(queueId, "accounting")}/${rule.id}`, {
        name: "renamed",
        conditions: { match: "all", rules: [{ field: "no_such_field", operator: "exists" }] },
      });
      expect(badPatch.status).to.equal(400);
      expect((await owner.patch(`${rulesPath(queueId, "accounting")}/${rule.id}`, {})).status).to.equal(400);
      expect((await listRules(queueId, "accounting"))[0]!.name).to.equal("Acme contract");
    });
  });

  describe("approval rules", () => {
    it("creates each action with members as approvers and refuses non-members, misfit params and accounting actions", async () => {
      const queueId = await org.addQueue("approval");
      const approverA = await org.invite("approver");
      const approverB = await org.invite("approver");
      const stranger = randomUUID();
      const path = rulesPath(queueId, "approval");
      const anyDocument = { match: "all", rules: [] };

      const route = await owner.post(path, {
        name: "two stages",
        action: "assign_approval_route",
        params: { stages: [{ approver_ids: [approverA] }, { approver_ids: [approverA, approverB], min_approvals: 2 }] },
        conditions: { match: "any", rules: [{ field: "total_due", operator: "gt", value: 10000 }] },
      });
      expect(route.status).to.equal(201);
      expect(route.body.data).to.include({ kind: "approval", action: "assign_approval_route", position: 1 });
      const assign = await owner.post(path, {
        name: "B too",
        action: "assign_approvers",
        params: { approver_ids: [approverB.toUpperCase()] },
        conditions: anyDocument,
      });
      expect(assign.status).to.equal(201);
      expect(assign.body.data.params).to.deep.equal({ approver_ids: [approverB] });
      const next = await owner.post(path, { name: "skip", action: "move_to_next_stage", params: {}, conditions: anyDocument });
      expect(next.status).to.equal(201);

      const refusals: Array<[Record<string, unknown>, string]> = [
        [
          { name: "x", action: "assign_approvers", params: { approver_ids: [approverA, stranger] }, conditions: anyDocument },
          "params.approver_ids.1",
        ],
        [
          { name: "x", action: "assign_approval_route", params: { stages: [{ approver_ids: [stranger] }] }, conditions: anyDocument },
          "params.stages.0.approver_ids.0",
        ],
        [
          {
            name: "x",
            action: "assign_approval_route",
            params: { stages: [{ approver_ids: [approverA], min_approvals: 2 }] },
            conditions: anyDocument,
          },
          "params.stages.0.min_approvals",
        ],
        [{ name: "x", action: "assign_approval_route", params: { stages: [] }, conditions: anyDocument }, "params.stages"],
        [
          { name: "x", action: "assign_approvers", params: { approver_ids: ["not-a-uuid"] }, conditions: anyDocument },
          "params.approver_ids.0",
        ],
        [{ name: "x", action: "move_to_next_stage", params: { stage: 2 }, conditions: anyDocument }, "params"],
        [{ name: "x", action: "apply_accounting_automation", params: { set: { contract: "x" } }, conditions: anyDocument }, "action"],
        [
          {
            name: "x",
            action: "assign_approvers",
            params: { approver_ids: [approverA] },
            conditions: { match: "all", rules: [{ field: "nope", operator: "exists" }] },
          },
          "conditions.rules.0.field",
        ],
      ];
      for (const [body, errorPath] of refusals) {
        const reply = await owner.post(path, body);
        expect(reply.status, JSON.stringify(body)).to.equal(400);
        expect(
          reply.body.errors.map((error: { path: string }) => error.path),
          JSON.stringify(body),
        ).to.include(errorPath);
      }
      // A new action needs params that fit it: the route's stages are not approver_ids.
      const changedAction = await owner.patch(`${path}/${route.body.data.id}`, { action: "assign_approvers" });
      expect(changedAction.status).to.equal(400);
      const withParams = await owner.patch(`${path}/${route.body.data.id}`, {
        action: "assign_approvers",
        params: { approver_ids: [approverA] },
      });
      expect(withParams.status).to.equal(200);
      expect(withParams.body.data).to.include({ action: "assign_approvers" });

      expect((await listRules(queueId, "approval")).map((rule) => rule.name)).to.deep.equal(["two stages", "B too", "skip"]);
      const reordered = await owner.put(`${path}/order`, { rule_ids: [next.body.data.id, route.body.data.id, assign.body.data.id] });
      expect(reordered.body.data.map((rule: { name: string }) => rule.name)).to.deep.equal(["skip", "two stages", "B too"]);
      expect((await owner.put(`${path}/order`, { rule_ids: [next.body.data.id] })).status).to.equal(400);
      expect((await owner.delete(`${path}/${assign.body.data.id}`)).status).to.equal(204);
      // An approval rule is not an accounting rule of the queue.
      expect((await owner.delete(`${rulesPath(queueId, "accounting")}/${route.body.data.id}`)).status).to.equal(404);
    });
  });

  describe("in_register conditions", () => {
    it("accepts a register of the queue (known from register.updated) and refuses another queue's; with the register service down an unknown one is 503", async () => {
      const queueId = await org.addQueue("registers");
      const otherQueueId = await org.addQueue("registers other");
      const register = (id: string, queue: string) =>
        createEvent("register.updated", {
          organization_id: org.organizationId,
          data: { register_id: id, queue_id: queue, name: "suppliers", method: "replace", item_count: 2 },
        });
      const ours = randomUUID();
      const theirs = randomUUID();
      await stack.tap.publish(register(ours, queueId));
      await stack.tap.publish(register(theirs, otherQueueId));
      const rule = (registerId: string) =>
        accountingRule({ conditions: { match: "all", rules: [{ field: "supplier_tax_id", operator: "in_register", value: registerId }] } });

      const created = await eventually(async () => {
        const reply = await owner.post(rulesPath(queueId, "accounting"), rule(ours));
        return reply.status === 201 ? reply : undefined;
      });
      expect(created.body.data.conditions.rules[0]).to.deep.equal({ field: "supplier_tax_id", operator: "in_register", value: ours });

      const foreign = await eventually(async () => {
        const reply = await owner.post(rulesPath(queueId, "accounting"), rule(theirs));
        return reply.status === 400 ? reply : undefined;
      });
      expect(foreign.body.errors[0].path).to.equal("conditions.rules.0.value");

      const unknown = await owner.post(rulesPath(queueId, "accounting"), rule(randomUUID()));
      expect(unknown.status).to.equal(503);
      expect(unknown.body.code).to.equal("register_unavailable");
      expect((await owner.post(rulesPath(queueId, "accounting"), rule("suppliers"))).status).to.equal(400);
      expect((await listRules(queueId, "accounting")).length).to.equal(1);
    });
  });

  describe("who may change automation", () => {
    it("lets owners, supervisors and admins of the queue change it; editors, viewers, approvers get 403; others 404", async () => {
      const queueId = await org.addQueue("roles");
      const otherQueueId = await org.addQueue("roles other");
      const api = async (role: string, queueIds?: string[]) => stack.automationApi(await org.invite(role, queueIds));
      const change = (user: UserApi) => user.patch(`/queues/${queueId}/accounting-automation`, { status: "enabled" });
      const create = (user: UserApi) => user.post(rulesPath(queueId, "accounting"), accountingRule());

      for (const user of [await api("supervisor"), await api("admin"), await api("admin", [queueId])]) {
        expect((await change(user)).status).to.equal(200);
        expect((await create(user)).status).to.equal(201);
      }
      for (const role of ["editor", "viewer", "approver"]) {
        const user = await api(role);
        const reply = await change(user);
        expect(reply.status, role).to.equal(403);
        expect((await create(user)).status, role).to.equal(403);
        expect((await user.put(`/queues/${queueId}/extraction-evaluation`, { document_confidence: 90, fields: [] })).status, role).to.equal(
          403,
        );
      }
      // An editor may read the rules; an admin of another queue does not see this one at all.
      expect((await (await api("editor")).get(rulesPath(queueId, "accounting"))).status).to.equal(200);
      const otherAdmin = await api("admin", [otherQueueId]);
      expect((await change(otherAdmin)).status).to.equal(404);
      expect((await otherAdmin.get(rulesPath(queueId, "accounting"))).status).to.equal(404);

      const outsider = stack.automationApi(randomUUID());
      expect((await change(outsider)).status).to.equal(404);
      const otherOrganization = await stack.organization("elsewhere");
      expect((await change(otherOrganization.owner)).status).to.equal(404);
      expect((await otherOrganization.owner.get(rulesPath(queueId, "accounting"))).status).to.equal(404);
      const rule = (await create(owner)).body.data;
      expect((await otherOrganization.owner.delete(`${rulesPath(queueId, "accounting")}/${rule.id}`)).status).to.equal(404);
      // Its own queue does not reach rules of this one.
      expect((await otherOrganization.owner.delete(`${rulesPath(otherOrganization.queueId, "accounting")}/${rule.id}`)).status).to.equal(
        404,
      );
    });

    it("answers 401 without a token, 404 for an unknown queue or rule, 405 for another method", async () => {
      const unauthenticated = await fetch(`http://127.0.0.1:${stack.automation.httpPort}/api/v2/queues/${org.queueId}/automation-rules`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ status: "enabled" }),
      });
      expect(unauthenticated.status).to.equal(401);
      expect((await owner.patch(`/queues/${randomUUID()}/automation-rules`, { status: "enabled" })).status).to.equal(404);
      expect((await owner.patch(`/queues/no-such-queue/automation-rules`, { status: "enabled" })).status).to.equal(404);
      expect((await owner.patch(`${rulesPath(org.queueId, "accounting")}/${randomUUID()}`, { name: "x" })).status).to.equal(404);
      expect((await owner.delete(`${rulesPath(org.queueId, "approval")}/not-a-uuid`)).status).to.equal(404);
      const wrongMethod = await owner.get(`/queues/${org.queueId}/automation-rules`);
      expect(wrongMethod.status).to.equal(405);
      expect(wrongMethod.headers.get("allow")).to.equal("PATCH");
    });
  });
});
