import { randomUUID } from "node:crypto";
import { databaseUrl } from "@docex/kit/db";
import { eventually, testDatabaseServerUrl, tokenIn } from "@docex/testkit";
import { expect } from "chai";
import pg from "pg";
import { type Answer, type Stack, sharedStack } from "./support/stack.js";

/**
 * Issue 25 end to end, through the gateway against the whole stack: a client navigates and changes the hierarchy
 * (lists, renames, a new annotation schema), and a document in approval follows its route stage by stage.
 */
describe("a hierarchy a client can navigate and change, and approval stages that are enforced", function () {
  this.timeout(90_000);
  let stack: Stack;
  let token = "";
  let organizationId = "";
  let workspaceId = "";
  const call = (...args: Parameters<Stack["call"]>) => stack.call(...args);
  const dataOf = (answer: Answer, status: number) => {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(status);
    return answer.body.data;
  };
  const subjectOf = (accessToken: string) => JSON.parse(Buffer.from(accessToken.split(".")[1]!, "base64url").toString("utf8")).sub;
  const ids = (answer: Answer) => dataOf(answer, 200).map((item: { id: string }) => item.id);

  /** A new user invited by the owner with `role` (limited to `queueIds`), who set a password from the mail. */
  async function member(role: string, queueIds?: string[]): Promise<{ token: string; id: string }> {
    const email = `${role}-${randomUUID().slice(0, 8)}@example.test`;
    const invite = { operation: "invite", email, role, ...(queueIds ? { queue_ids: queueIds } : {}) };
    dataOf(await call("POST", `/organizations/${organizationId}/assign-roles`, { token, body: [invite] }), 200);
    const invitation = tokenIn(await stack.mail.waitForMail(email, 1, 15_000));
    const tokens = dataOf(
      await call("POST", "/auth/change-password", { body: { token: invitation, password: "a long enough password" } }),
      200,
    );
    return { token: tokens.access_token, id: subjectOf(tokens.access_token) };
  }

  async function newQueue(name: string): Promise<string> {
    return dataOf(await call("POST", "/queues", { token, body: { workspace_id: workspaceId, name, extraction_engine: "external" } }), 201)
      .id;
  }

  async function extractedDocument(queueId: string, invoiceId: string): Promise<string> {
    const id = dataOf(await call("POST", `/queues/${queueId}/documents`, { token, body: { file_name: `${invoiceId}.pdf` } }), 201).id;
    const extraction = {
      annotations: [
        { key: "invoice_id", value: invoiceId, confidence: 90 },
        { key: "total_due", value: "100" },
      ],
      confidence: 90,
    };
    dataOf(await call("POST", `/documents/${id}/extraction`, { token, body: extraction }), 200);
    return id;
  }

  before(async function () {
    this.timeout(200_000);
    stack = await sharedStack();
    token = (await stack.login(stack.owner.email, stack.owner.password)).access_token;
    organizationId = dataOf(await call("POST", "/organizations", { token, body: { name: `Hierarchy ${stack.namespace}` } }), 201).id;
    const workspace = await eventually(async () => {
      const answer = await call("POST", "/workspaces", { token, body: { organization_id: organizationId, name: "Payables" } });
      return answer.status === 201 ? answer : undefined;
    }, 10_000);
    workspaceId = dataOf(workspace, 201).id;
  });

  it("lists, renames and changes the hierarchy under the role table, and keeps documents' annotations across a schema change", async () => {
    const queueA = await newQueue("Invoices A");
    const queueB = await newQueue("Invoices B");
    const viewer = await member("viewer", [queueA]);

    expect(ids(await call("GET", `/organizations/${organizationId}/workspaces`, { token }))).to.deep.equal([workspaceId]);
    expect(ids(await call("GET", `/workspaces/${workspaceId}/queues?q=invoices`, { token }))).to.deep.equal([queueA, queueB]);
    expect(ids(await call("GET", `/workspaces/${workspaceId}/queues`, { token: viewer.token }))).to.deep.equal([queueA]);

    const organization = dataOf(await call("PATCH", `/organizations/${organizationId}`, { token, body: { name: "Renamed Ltd" } }), 200);
    expect(organization.name).to.equal("Renamed Ltd");
    const workspace = dataOf(await call("PATCH", `/workspaces/${workspaceId}`, { token, body: { name: "Accounts payable" } }), 200);
    expect(workspace.humanized_id).to.equal("payables");
    expect((await call("PATCH", `/workspaces/${workspaceId}`, { token: viewer.token, body: { name: "No" } })).status).to.equal(403);
    expect((await call("PATCH", `/queues/${queueA}`, { token: viewer.token, body: { name: "No" } })).status).to.equal(403);
    expect((await call("PATCH", `/queues/${queueB}`, { token: viewer.token, body: { name: "No" } })).status).to.equal(404);

    const documentId = await extractedDocument(queueA, "SCHEMA-1");
    const schema = [
      { key: "invoice_id", label: "Invoice number", type: "string" },
      { key: "cost_centre", label: "Cost centre", type: "string" },
    ];
    const queue = dataOf(
      await call("PATCH", `/queues/${queueA}`, { token, body: { annotation_schema: schema, name: "Invoices (new schema)" } }),
      200,
    );
    expect(queue.annotation_schema.map((field: { key: string }) => field.key)).to.deep.equal(["invoice_id", "cost_centre"]);
    const document = dataOf(await call("GET", `/documents/${documentId}`, { token }), 200);
    expect(document.annotations.map((annotation: { key: string }) => annotation.key)).to.have.members(["invoice_id", "total_due"]);
    dataOf(
      await call("PATCH", `/documents/${documentId}/annotations`, {
        token,
        body: { annotations: [{ key: "cost_centre", value: "CC-1" }] },
      }),
      200,
    );

    // The change is in the audit log, with what changed.
    const audited = await eventually(async () => {
      const answer = await call("GET", `/organizations/${organizationId}/audit-log?type=configuration.changed`, { token });
      const entries = answer.status === 200 ? answer.body.data : [];
      return entries.find((entry: { details: { resource: string } }) => entry.details.resource === "queue");
    }, 15_000);
    expect(Object.keys(audited.details.current).sort()).to.deep.equal(["annotation_schema", "name"]);
  });

  it("follows a two-stage route: two approvals complete stage one, stage two's approver ends it; a rejection ends in rejected", async () => {
    const queueId = await newQueue("Approvals");
    const [first, second, final] = await Promise.all([
      member("approver", [queueId]),
      member("approver", [queueId]),
      member("approver", [queueId]),
    ]);
    dataOf(await call("PATCH", `/queues/${queueId}/automation-rules`, { token, body: { status: "enabled" } }), 200);
    dataOf(
      await call("POST", `/queues/${queueId}/approval-automation`, {
        token,
        body: {
          name: "Two stages",
          action: "assign_approval_route",
          params: { stages: [{ approver_ids: [first!.id, second!.id], min_approvals: 2 }, { approver_ids: [final!.id] }] },
          conditions: { match: "all", rules: [] },
        },
      }),
      201,
    );

    const routed = async (invoiceId: string) => {
      const id = await extractedDocument(queueId, invoiceId);
      await eventually(async () => {
        const answer = await call("GET", `/documents/${id}`, { token });
        return answer.body?.data?.approval ? true : undefined;
      }, 20_000);
      dataOf(await call("POST", `/documents/${id}/status`, { token, body: { status: "in_approval" } }), 200);
      return id;
    };
    const documentId = await routed("ROUTE-1");
    const approve = (who: { token: string }, id = documentId) => call("POST", `/documents/${id}/approve`, { token: who.token });

    expect((await approve(final!)).status, "stage two's approver during stage one").to.equal(404);
    const one = dataOf(await approve(first!), 200);
    expect(one).to.deep.include({ status: "in_approval" });
    expect(one.approval.current_stage).to.equal(1);
    const again = await approve(first!);
    expect(again.status).to.equal(409);
    expect(again.body.code).to.equal("already_decided");
    const two = dataOf(await approve(second!), 200);
    expect(two.approval.current_stage).to.equal(2);
    expect(two.approvers).to.deep.equal([final!.id]);
    const done = dataOf(await approve(final!), 200);
    expect(done.status).to.equal("ready_to_export");
    expect(
      done.approval.stages.map((stage: { approvals: Array<{ user_id: string }> }) => stage.approvals.map((each) => each.user_id)),
    ).to.deep.equal([[first!.id, second!.id], [final!.id]]);

    const audit = await eventually(async () => {
      const answer = await call("GET", `/documents/${documentId}/audit-log?type=document.approved&order=asc`, { token });
      return answer.status === 200 && answer.body.data.length === 3 ? answer.body.data : undefined;
    }, 15_000);
    expect(audit.map((entry: { user_id: string }) => entry.user_id)).to.deep.equal([first!.id, second!.id, final!.id]);

    const rejectedId = await routed("ROUTE-2");
    const rejected = dataOf(await call("POST", `/documents/${rejectedId}/reject`, { token: second!.token }), 200);
    expect(rejected.status).to.equal("rejected");
    expect(rejected.approval.rejection.user_id).to.equal(second!.id);
    expect((await approve(first!, rejectedId)).body.code).to.equal("not_in_approval");
  });

  /**
   * What each service keeps that names the queue or workspace, counted in its own database: the check that a
   * deletion leaves nothing behind anywhere.
   */
  async function leftovers(queueId: string, workspaceId: string): Promise<Record<string, number>> {
    const checks: Record<string, Array<[string, string]>> = {
      document: [
        ["queues", "SELECT count(*) FROM queues WHERE id = $1 OR workspace_id = $2"],
        ["workspaces", "SELECT count(*) FROM workspaces WHERE id IN ($1, $2)"],
        ["documents", "SELECT count(*) FROM documents WHERE queue_id = $1"],
        ["queue_validation_links", "SELECT count(*) FROM queue_validation_links WHERE queue_id = $1"],
        ["automation_switches", "SELECT count(*) FROM automation_switches WHERE queue_id = $1"],
      ],
      webhook: [["webhooks", "SELECT count(*) FROM webhooks WHERE queue_id = $1 OR workspace_id = $2"]],
      automation: ["rules", "queue_settings", "queue_registers", "document_runs"].map((table) => [
        table,
        `SELECT count(*) FROM ${table} WHERE queue_id = $1`,
      ]),
      register: [
        ["registers", "SELECT count(*) FROM registers WHERE queue_id = $1"],
        ["register_items", "SELECT count(*) FROM register_items i JOIN registers r ON r.id = i.register_id WHERE r.queue_id = $1"],
      ],
      learning: ["feedback", "field_confirmations", "pinned_fields", "supplier_preferences", "learned_fills"].map((table) => [
        table,
        `SELECT count(*) FROM ${table} WHERE queue_id = $1`,
      ]),
      membership: [
        ["user_schemas", "SELECT count(*) FROM user_schemas WHERE queue_id = $1"],
        ["memberships", "SELECT count(*) FROM memberships WHERE queue_ids @> ARRAY[$1::uuid]"],
      ],
      extraction: [["extraction_runs", "SELECT count(*) FROM extraction_runs WHERE queue_id = $1"]],
    };
    const counts: Record<string, number> = {};
    for (const [service, queries] of Object.entries(checks)) {
      const client = new pg.Client({ connectionString: databaseUrl(testDatabaseServerUrl(), `${stack.namespace}_${service}`) });
      await client.connect();
      try {
        for (const [table, sql] of queries) {
          const uses = sql.includes("$2") ? [queueId, workspaceId] : [queueId];
          const { rows } = await client.query<{ count: string }>(sql, uses);
          if (Number(rows[0]!.count) > 0) counts[`${service}.${table}`] = Number(rows[0]!.count);
        }
      } finally {
        await client.end();
      }
    }
    return counts;
  }

  it("deletes a workspace with its queue and everything every service keeps of them, once its documents are deleted", async () => {
    const doomed = dataOf(await call("POST", "/workspaces", { token, body: { organization_id: organizationId, name: "Doomed" } }), 201).id;
    const queueId = dataOf(await call("POST", "/queues", { token, body: { workspace_id: doomed, name: "Doomed invoices" } }), 201).id;
    const kept = await newQueue("Survivor");
    const pdf = Buffer.from("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n").toString("base64");
    const documentId = dataOf(
      await call("POST", `/queues/${queueId}/documents`, { token, body: { file_name: "doomed.pdf", content: pdf } }),
      201,
    ).id;
    // The built-in engine reads the file (a run in the extraction service) and moves the document on.
    await eventually(async () => {
      const status = (await call("GET", `/documents/${documentId}`, { token })).body?.data?.status;
      return status === "to_validate" || status === "extraction_failed" ? status : undefined;
    }, 30_000);

    const webhook = (entity_type: string, entity_id: string) => ({ url: "http://127.0.0.1:9/doomed", entity_type, entity_id });
    dataOf(await call("POST", "/webhooks", { token, body: webhook("queue", queueId) }), 201);
    dataOf(await call("POST", "/webhooks", { token, body: webhook("workspace", doomed) }), 201);
    dataOf(await call("POST", "/webhooks", { token, body: webhook("document", documentId) }), 201);
    const link = { url: "http://127.0.0.1:9/validate", type: "document_validation", signature_verification: "disabled" };
    dataOf(await call("POST", `/queues/${queueId}/external-validation-links`, { token, body: link }), 201);
    dataOf(await call("PATCH", `/queues/${queueId}/automation-rules`, { token, body: { status: "enabled" } }), 200);
    const rule = {
      name: "Doomed rule",
      action: "apply_accounting_automation",
      params: { set: { contract: "C-1" } },
      conditions: { match: "all", rules: [] },
    };
    dataOf(await call("POST", `/queues/${queueId}/accounting-automation-rules`, { token, body: rule }), 201);
    const register = [{ queue_id: queueId, method: "upsert", name: "Suppliers", items: [{ value: "1", label: "One" }] }];
    expect((await call("POST", "/registers", { token, body: register })).status).to.equal(201);
    const relearn = { name: "Doomed Supplier", register_id: null, tax_id: null, value: "C-9", field_key: "contract" };
    expect((await call("POST", `/queues/${queueId}/relearn`, { token, body: relearn })).status).to.equal(204);
    const viewer = await member("viewer", [queueId, kept]);
    const schema = { user_id: viewer.id, queue_id: queueId, fields: [{ key: "iban", hidden: true }] };
    dataOf(await call("POST", `/organizations/${organizationId}/manage-user-schema`, { token, body: schema }), 200);

    // Every service holds something of the queue now (events reach some of them a moment later).
    const before = await eventually(async () => {
      const counts = await leftovers(queueId, doomed);
      const services = new Set(Object.keys(counts).map((key) => key.split(".")[0]));
      return services.size === 7 ? counts : undefined;
    }, 20_000);
    expect(before).to.include.keys("webhook.webhooks", "automation.rules", "register.register_items", "learning.pinned_fields");

    const refused = await call("DELETE", `/workspaces/${doomed}`, { token });
    expect(refused.status).to.equal(409);
    expect(refused.body.code).to.equal("not_empty");
    dataOf(await call("POST", `/documents/${documentId}/status`, { token, body: { status: "deleted" } }), 200);
    expect((await call("DELETE", `/workspaces/${doomed}`, { token: viewer.token })).status).to.equal(403);
    expect((await call("DELETE", `/workspaces/${doomed}`, { token })).status).to.equal(204);

    const after = await eventually(async () => {
      const counts = await leftovers(queueId, doomed);
      return Object.keys(counts).length === 0 ? counts : undefined;
    }, 20_000).catch(async () => leftovers(queueId, doomed));
    expect(after).to.deep.equal({});
    expect((await call("GET", `/queues/${queueId}`, { token })).status).to.equal(404);
    expect((await call("GET", `/workspaces/${doomed}`, { token })).status).to.equal(404);
    const memberships = dataOf(await call("GET", `/organizations/${organizationId}/raw-memberships`, { token }), 200);
    expect(memberships.find((one: { user_id: string }) => one.user_id === viewer.id).queue_ids).to.deep.equal([kept]);
  });
});
