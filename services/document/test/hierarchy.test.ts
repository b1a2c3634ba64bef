import { randomUUID } from "node:crypto";
import { DEFAULT_ANNOTATION_SCHEMA } from "@docex/annotations";
import { createEvent } from "@docex/events";
import { eventually } from "@docex/testkit";
import { expect } from "chai";
import { expectGrpcError } from "./support/grpc-errors.js";
import { Harness } from "./support/harness.js";

describe("workspaces and queues (membership is an in-process test double)", function () {
  this.timeout(30_000);
  let h: Harness;

  before(async () => {
    h = await Harness.start();
  });
  after(async () => {
    await h?.stop();
  });

  it("creates the hierarchy by UUID: organization → workspace → queue, each readable by its UUID", async () => {
    const organization = h.organization("uuid");
    const workspace = await organization.owner.post("/workspaces", { organization_id: organization.id, name: "Accounts Payable" });
    expect(workspace.status).to.equal(201);
    expect(workspace.headers.get("location")).to.equal(`/api/v2/workspaces/${workspace.body.data.id}`);
    expect(workspace.body.data).to.include({
      name: "Accounts Payable",
      organization_id: organization.id,
      humanized_id: "accounts-payable",
    });
    expect(Object.keys(workspace.body.data).sort()).to.deep.equal(["created_at", "humanized_id", "id", "name", "organization_id"]);

    const queue = await organization.owner.post("/queues", { workspace_id: workspace.body.data.id, name: "Invoices" });
    expect(queue.status).to.equal(201);
    expect(queue.body.data).to.include({ workspace_id: workspace.body.data.id, organization_id: organization.id, name: "Invoices" });

    const readWorkspace = await organization.owner.get(`/workspaces/${workspace.body.data.id}`);
    expect(readWorkspace.body.data).to.deep.equal(workspace.body.data);
    const readQueue = await organization.owner.get(`/queues/${queue.body.data.id}`);
    expect(readQueue.body.data).to.deep.equal(queue.body.data);
  });

  it("creates the hierarchy by humanized id: organization, workspace and queue named by their slugs", async () => {
    const organization = h.organization("slug");
    const suffix = randomUUID().slice(0, 8);
    const workspace = await organization.owner.post("/workspaces", {
      organization_id: organization.humanizedId,
      name: "Finance",
      humanized_id: `finance-${suffix}`,
    });
    expect(workspace.status).to.equal(201);
    expect(workspace.body.data).to.include({ organization_id: organization.id, humanized_id: `finance-${suffix}` });

    const queue = await organization.owner.post("/queues", {
      workspace_id: `finance-${suffix}`,
      name: "Bills",
      humanized_id: `bills-${suffix}`,
    });
    expect(queue.status).to.equal(201);
    expect(queue.body.data.workspace_id).to.equal(workspace.body.data.id);

    expect((await organization.owner.get(`/workspaces/finance-${suffix}`)).body.data.id).to.equal(workspace.body.data.id);
    expect((await organization.owner.get(`/queues/bills-${suffix}`)).body.data.id).to.equal(queue.body.data.id);
    const upload = await organization.owner.post(`/queues/bills-${suffix}/documents`, { file_name: "a.pdf" });
    expect(upload.status).to.equal(201);
    const list = await organization.owner.get(`/queues/bills-${suffix}/documents`);
    expect(list.body.data.map((document: { id: string }) => document.id)).to.deep.equal([upload.body.data.id]);
  });

  it("answers QueueWithAnnotationSchemaDto with the default schema and automation disabled while automation does not answer", async () => {
    const organization = h.organization("dto");
    const workspace = await organization.owner.post("/workspaces", { organization_id: organization.id, name: "W" });
    const started = Date.now();
    const queue = await organization.owner.post("/queues", { workspace_id: workspace.body.data.id, name: "Q" });
    expect(Date.now() - started).to.be.below(1_000);
    expect(queue.body.data).to.deep.include({
      accounting_automation: "disabled",
      automation_rules: "disabled",
      extraction_evaluation: { status: "disabled", document_confidence: null, fields: [] },
      duplicate_file_rejection: "disabled",
      extraction_engine: "builtin",
    });
    expect(queue.body.data.annotation_schema).to.deep.equal(DEFAULT_ANNOTATION_SCHEMA);
    const keys = queue.body.data.annotation_schema.map((field: { key: string }) => field.key);
    expect(keys).to.include.members([
      "iban",
      "bank_account",
      "total_due",
      "due_date",
      "invoice_id",
      "contract",
      "line_items",
      "supplier_name",
      "supplier_tax_id",
      "supplier_register_id",
    ]);
    expect(Object.keys(queue.body.data).sort()).to.deep.equal(
      [
        "accounting_automation",
        "annotation_schema",
        "automation_rules",
        "created_at",
        "document_lifetime_days",
        "duplicate_file_rejection",
        "extraction_engine",
        "extraction_evaluation",
        "humanized_id",
        "id",
        "inbox_allowed_senders",
        "inbox_email",
        "learn_from_validation",
        "name",
        "organization_id",
        "workspace_id",
      ].sort(),
    );
  });

  it("generates unique humanized ids from names and answers 409 for a taken one", async () => {
    const organization = h.organization("ids");
    const first = await organization.owner.post("/workspaces", { organization_id: organization.id, name: "Žluťoučký Kůň" });
    const second = await organization.owner.post("/workspaces", { organization_id: organization.id, name: "Žluťoučký Kůň" });
    expect(first.body.data.humanized_id).to.match(/^zlutoucky-kun(-[0-9]+)?$/);
    expect(second.body.data.humanized_id).to.match(/^zlutoucky-kun-[0-9]+$/);
    expect(second.body.data.humanized_id).not.to.equal(first.body.data.humanized_id);

    const taken = await organization.owner.post("/workspaces", {
      organization_id: organization.id,
      name: "Again",
      humanized_id: first.body.data.humanized_id,
    });
    expect(taken.status).to.equal(409);
    expect(taken.body.code).to.equal("humanized_id_taken");
  });

  it("rejects a humanized id that is not a slug or looks like a UUID, and an invalid annotation schema, naming each field", async () => {
    const organization = h.organization("bad");
    const badSlug = await organization.owner.post("/workspaces", {
      organization_id: organization.id,
      name: "W",
      humanized_id: "Not A Slug",
    });
    expect(badSlug.status).to.equal(400);
    expect(badSlug.body.errors.map((error: { path: string }) => error.path)).to.deep.equal(["humanized_id"]);
    const uuidLike = await organization.owner.post("/workspaces", {
      organization_id: organization.id,
      name: "W",
      humanized_id: randomUUID(),
    });
    expect(uuidLike.status).to.equal(400);

    const workspace = await organization.owner.post("/workspaces", { organization_id: organization.id, name: "W" });
    const badSchema = await organization.owner.post("/queues", {
      workspace_id: workspace.body.data.id,
      name: "Q",
      annotation_schema: [
        { key: "amount", label: "Amount", type: "money" },
        { key: "total", label: "Total", type: "number" },
        { key: "total", label: "Again", type: "string" },
        { key: "items", label: "Items", type: "table" },
        { key: "note", label: "Note", type: "string", columns: [{ key: "x", label: "X", type: "string" }] },
        { key: "rows", label: "Rows", type: "table", columns: [{ key: "total", label: "Total", type: "number" }] },
      ],
    });
    expect(badSchema.status).to.equal(400);
    expect(badSchema.body.errors.map((error: { path: string }) => error.path)).to.have.members([
      "annotation_schema.0.type",
      "annotation_schema.2.key",
      "annotation_schema.3.columns",
      "annotation_schema.4.columns",
      "annotation_schema.5.columns.0.key",
    ]);
    const unknownProperty = await organization.owner.post("/queues", { workspace_id: workspace.body.data.id, name: "Q", colour: "red" });
    expect(unknownProperty.status).to.equal(400);
  });

  it("accepts a custom annotation schema and returns it as given", async () => {
    const organization = h.organization("custom");
    const workspace = await organization.owner.post("/workspaces", { organization_id: organization.id, name: "W" });
    const schema = [
      { key: "order_no", label: "Order", type: "string" },
      { key: "currency", label: "Currency", type: "enum", register_id: "currencies" },
      { key: "rows", label: "Rows", type: "table", columns: [{ key: "qty", label: "Qty", type: "number" }] },
    ];
    const queue = await organization.owner.post("/queues", { workspace_id: workspace.body.data.id, name: "Q", annotation_schema: schema });
    expect(queue.status).to.equal(201);
    expect(queue.body.data.annotation_schema).to.deep.equal(schema);
  });

  it("publishes queue.created once per queue, with workspace, queue and organization ids", async () => {
    const organization = h.organization("events");
    const workspace = await organization.owner.post("/workspaces", { organization_id: organization.id, name: "W" });
    const first = await organization.owner.post("/queues", { workspace_id: workspace.body.data.id, name: "Q1" });
    const second = await organization.owner.post("/queues", { workspace_id: workspace.body.data.id, name: "Q2" });
    const events = await h.events.settle((recorded) => recorded.event.organization_id === organization.id, 2);
    expect(events).to.have.length(2);
    expect(events.map((recorded) => recorded.event.data)).to.have.deep.members([
      { workspace_id: workspace.body.data.id, queue_id: first.body.data.id, organization_id: organization.id },
      { workspace_id: workspace.body.data.id, queue_id: second.body.data.id, organization_id: organization.id },
    ]);
    for (const recorded of events) {
      expect(recorded.subject).to.equal("docex.queue.created");
      expect(recorded.msgId).to.equal(recorded.event.id);
    }
  });

  it("answers 404 for another organization's organization, workspace and queue ids, by UUID and humanized id", async () => {
    const mine = h.organization("mine");
    const theirs = h.organization("theirs");
    const workspace = await theirs.owner.post("/workspaces", { organization_id: theirs.id, name: "Secret" });
    const queue = await theirs.owner.post("/queues", { workspace_id: workspace.body.data.id, name: "Secret" });
    const attempts = [
      await mine.owner.post("/workspaces", { organization_id: theirs.id, name: "Intruder" }),
      await mine.owner.post("/workspaces", { organization_id: theirs.humanizedId, name: "Intruder" }),
      await mine.owner.post("/workspaces", { organization_id: randomUUID(), name: "Nowhere" }),
      await mine.owner.get(`/workspaces/${workspace.body.data.id}`),
      await mine.owner.get(`/workspaces/${workspace.body.data.humanized_id}`),
      await mine.owner.post("/queues", { workspace_id: workspace.body.data.id, name: "Intruder" }),
      await mine.owner.get(`/queues/${queue.body.data.id}`),
      await mine.owner.get(`/queues/${queue.body.data.humanized_id}`),
      await mine.owner.get(`/queues/${queue.body.data.id}/documents`),
      await mine.owner.post(`/queues/${queue.body.data.id}/documents`, { file_name: "x.pdf" }),
    ];
    for (const attempt of attempts) {
      expect(attempt.status).to.equal(404);
      expect(attempt.headers.get("content-type")).to.match(/^application\/problem\+json/);
    }
  });

  it("lets owners and supervisors create workspaces and queues; others get 403, a token-less call 401", async () => {
    const organization = h.organization("roles");
    const workspace = await organization.owner.post("/workspaces", { organization_id: organization.id, name: "W" });
    const supervisor = h.member(organization.id, "supervisor");
    expect((await supervisor.post("/workspaces", { organization_id: organization.id, name: "S" })).status).to.equal(201);
    expect((await supervisor.post("/queues", { workspace_id: workspace.body.data.id, name: "S" })).status).to.equal(201);
    const admin = h.member(organization.id, "admin");
    expect((await admin.post("/workspaces", { organization_id: organization.id, name: "A" })).status).to.equal(403);
    expect((await admin.post("/queues", { workspace_id: workspace.body.data.id, name: "A" })).status).to.equal(201);
    for (const role of ["editor", "viewer", "approver"] as const) {
      const user = h.member(organization.id, role);
      const denied = await user.post("/workspaces", { organization_id: organization.id, name: "X" });
      expect(denied.status, role).to.equal(403);
      expect(denied.body.code).to.equal("forbidden");
      expect((await user.post("/queues", { workspace_id: workspace.body.data.id, name: "X" })).status, role).to.equal(403);
      expect((await user.get(`/workspaces/${workspace.body.data.id}`)).status, role).to.equal(200);
    }
    const anonymous = await fetch(`${h.baseUrl}/api/v2/workspaces/${workspace.body.data.id}`);
    expect(anonymous.status).to.equal(401);
  });

  it("hides a queue outside a member's queue_ids (404) while the queues within them answer", async () => {
    const organization = h.organization("limits");
    const workspace = await organization.owner.post("/workspaces", { organization_id: organization.id, name: "W" });
    const allowed = await organization.owner.post("/queues", { workspace_id: workspace.body.data.id, name: "Allowed" });
    const other = await organization.owner.post("/queues", { workspace_id: workspace.body.data.id, name: "Other" });
    const editor = h.member(organization.id, "editor", [allowed.body.data.id]);
    expect((await editor.get(`/queues/${allowed.body.data.id}`)).status).to.equal(200);
    expect((await editor.get(`/queues/${other.body.data.id}`)).status).to.equal(404);
    expect((await editor.post(`/queues/${other.body.data.id}/documents`, { file_name: "x.pdf" })).status).to.equal(404);
    expect((await editor.post(`/queues/${allowed.body.data.id}/documents`, { file_name: "x.pdf" })).status).to.equal(201);
  });

  describe("gRPC", () => {
    it("ResolveEntity finds organizations, workspaces, queues by UUID or humanized id and documents by UUID, with their ancestors", async () => {
      const organization = h.organization("resolve");
      const workspace = (await organization.owner.post("/workspaces", { organization_id: organization.id, name: "W" })).body.data;
      const queue = (await organization.owner.post("/queues", { workspace_id: workspace.id, name: "Q" })).body.data;
      const document = (await organization.owner.post(`/queues/${queue.id}/documents`, { file_name: "a.pdf" })).body.data;
      const resolve = (entity_type: string, id_or_humanized: string, organization_id?: string) =>
        h.grpc.resolveEntity({ entity_type, id_or_humanized, ...(organization_id ? { organization_id } : {}) });

      for (const ref of [organization.id, organization.humanizedId]) {
        expect(await resolve("organization", ref)).to.deep.equal({
          entity_type: "organization",
          id: organization.id,
          humanized_id: organization.humanizedId,
          organization_id: organization.id,
          workspace_id: "",
          queue_id: "",
          document_id: "",
        });
      }
      for (const ref of [workspace.id, workspace.humanized_id]) {
        expect(await resolve("workspace", ref)).to.include({
          id: workspace.id,
          organization_id: organization.id,
          workspace_id: workspace.id,
          queue_id: "",
        });
      }
      for (const ref of [queue.id, queue.humanized_id.toUpperCase()]) {
        expect(await resolve("queue", ref, organization.id)).to.include({ id: queue.id, workspace_id: workspace.id, queue_id: queue.id });
      }
      expect(await resolve("queue", queue.id, organization.humanizedId)).to.include({ id: queue.id });
      expect(await resolve("document", document.id)).to.include({
        id: document.id,
        humanized_id: "",
        organization_id: organization.id,
        workspace_id: workspace.id,
        queue_id: queue.id,
        document_id: document.id,
      });

      const other = h.organization("other");
      await expectGrpcError(resolve("queue", queue.id, other.id), "NOT_FOUND");
      await expectGrpcError(resolve("queue", "no-such-queue"), "NOT_FOUND");
      await expectGrpcError(resolve("document", queue.humanized_id), "NOT_FOUND");
      await expectGrpcError(resolve("register", queue.id), "INVALID_ARGUMENT");
    });

    it("ResolveEntity knows an organization from membership's organization.created before anyone used it here", async () => {
      const organizationId = randomUUID();
      const humanizedId = `announced-${randomUUID().slice(0, 8)}`;
      await h.events.publish(
        createEvent("organization.created", {
          organization_id: organizationId,
          data: { organization_id: organizationId, humanized_id: humanizedId, name: "Announced", owner_user_id: randomUUID() },
        }),
      );
      const resolved = await eventually(() =>
        h.grpc.resolveEntity({ entity_type: "organization", id_or_humanized: humanizedId }).catch(() => undefined),
      );
      expect(resolved).to.include({ id: organizationId, humanized_id: humanizedId, organization_id: organizationId });
    });

    it("ResolveEntity asks membership for an organization whose organization.created has not arrived, and remembers it", async () => {
      const organization = h.organization("just-created");
      for (const ref of [organization.humanizedId, organization.id]) {
        expect(await h.grpc.resolveEntity({ entity_type: "organization", id_or_humanized: ref })).to.include({
          id: organization.id,
          humanized_id: organization.humanizedId,
        });
      }
      // Remembered: membership no longer needs to know it.
      h.double.organizations.delete(organization.id);
      expect(await h.grpc.resolveEntity({ entity_type: "organization", id_or_humanized: organization.humanizedId })).to.include({
        id: organization.id,
      });
      await expectGrpcError(h.grpc.resolveEntity({ entity_type: "organization", id_or_humanized: randomUUID() }), "NOT_FOUND");
    });

    it("GetQueue answers the queue with its schema as JSON; NOT_FOUND for an unknown one", async () => {
      const organization = h.organization("getqueue");
      const workspace = (await organization.owner.post("/workspaces", { organization_id: organization.id, name: "W" })).body.data;
      const queue = (await organization.owner.post("/queues", { workspace_id: workspace.id, name: "Q" })).body.data;
      const { queue: message } = await h.grpc.getQueue({ queue_id: queue.id });
      expect(message).to.include({
        id: queue.id,
        humanized_id: queue.humanized_id,
        workspace_id: workspace.id,
        organization_id: organization.id,
      });
      expect(JSON.parse(message!.annotation_schema_json)).to.deep.equal(queue.annotation_schema);
      await expectGrpcError(h.grpc.getQueue({ queue_id: randomUUID() }), "NOT_FOUND");
    });
  });
});
