import { DEFAULT_ANNOTATION_SCHEMA } from "@docex/annotations";
import { connectDatabase } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import { expect } from "chai";
import { documentFixture, Harness, queueFixture } from "./support/harness.js";

const ids = (reply: { body: { data: Array<{ id: string }> } }) => reply.body.data.map((item) => item.id);

describe("lists of workspaces and queues, and changes to them (membership is an in-process test double)", function () {
  this.timeout(30_000);
  let h: Harness;

  before(async () => {
    h = await Harness.start();
  });
  after(async () => {
    await h?.stop();
  });

  it("lists an organization's workspaces and a workspace's queues, oldest first, paginated and filtered by name", async () => {
    const organization = h.organization("lists");
    const workspaceIds: string[] = [];
    for (const name of ["Payables", "Receivables", "Payroll 100%"]) {
      const created = await organization.owner.post("/workspaces", { organization_id: organization.id, name });
      workspaceIds.push(created.body.data.id);
    }
    const all = await organization.owner.get(`/organizations/${organization.id}/workspaces`);
    expect(all.status).to.equal(200);
    expect(ids(all)).to.deep.equal(workspaceIds);
    expect(all.body.pagination).to.deep.equal({ page: 1, page_size: 20, total: 3, total_pages: 1 });

    const byHumanizedId = await organization.owner.get(`/organizations/${organization.humanizedId}/workspaces?page=2&page_size=2`);
    expect(ids(byHumanizedId)).to.deep.equal([workspaceIds[2]]);
    expect(byHumanizedId.body.pagination).to.deep.equal({ page: 2, page_size: 2, total: 3, total_pages: 2 });

    expect(ids(await organization.owner.get(`/organizations/${organization.id}/workspaces?q=PAY`))).to.deep.equal([
      workspaceIds[0],
      workspaceIds[2],
    ]);
    // `%` and `_` are matched as themselves, not as patterns.
    expect(ids(await organization.owner.get(`/organizations/${organization.id}/workspaces?q=100%25`))).to.deep.equal([workspaceIds[2]]);
    expect(ids(await organization.owner.get(`/organizations/${organization.id}/workspaces?q=_`))).to.deep.equal([]);

    const queueIds: string[] = [];
    for (const name of ["Invoices", "Credit notes"]) {
      const created = await organization.owner.post("/queues", { workspace_id: workspaceIds[0], name });
      queueIds.push(created.body.data.id);
    }
    const queues = await organization.owner.get(`/workspaces/${workspaceIds[0]}/queues`);
    expect(queues.status).to.equal(200);
    expect(ids(queues)).to.deep.equal(queueIds);
    expect(queues.body.data[0]).to.include({ name: "Invoices", workspace_id: workspaceIds[0], extraction_engine: "builtin" });
    expect(queues.body.data[0].annotation_schema).to.have.length(DEFAULT_ANNOTATION_SCHEMA.length);
    expect(ids(await organization.owner.get(`/workspaces/${workspaceIds[0]}/queues?q=credit`))).to.deep.equal([queueIds[1]]);
    expect(ids(await organization.owner.get(`/workspaces/${workspaceIds[1]}/queues`))).to.deep.equal([]);
  });

  it("shows a member limited to some queues only those queues and the workspaces that hold them", async () => {
    const organization = h.organization("limited");
    const first = await organization.owner.post("/workspaces", { organization_id: organization.id, name: "First" });
    const second = await organization.owner.post("/workspaces", { organization_id: organization.id, name: "Second" });
    const mine = await organization.owner.post("/queues", { workspace_id: first.body.data.id, name: "Mine" });
    await organization.owner.post("/queues", { workspace_id: first.body.data.id, name: "Not mine" });
    await organization.owner.post("/queues", { workspace_id: second.body.data.id, name: "Elsewhere" });

    for (const role of ["viewer", "editor", "admin", "approver"] as const) {
      const member = h.member(organization.id, role, [mine.body.data.id]);
      expect(ids(await member.get(`/organizations/${organization.id}/workspaces`)), role).to.deep.equal([first.body.data.id]);
      const queues = await member.get(`/workspaces/${first.body.data.id}/queues`);
      expect(ids(queues), role).to.deep.equal([mine.body.data.id]);
      expect(queues.body.pagination.total, role).to.equal(1);
      expect(ids(await member.get(`/workspaces/${second.body.data.id}/queues`)), role).to.deep.equal([]);
    }
    const everything = h.member(organization.id, "viewer");
    expect(ids(await everything.get(`/organizations/${organization.id}/workspaces`))).to.have.length(2);
  });

  it("answers 404 for another organization's lists and 400 for a bad page", async () => {
    const { organization, workspaceId } = await queueFixture(h, "tenancy");
    const stranger = h.organization("stranger").owner;
    for (const path of [`/organizations/${organization.id}/workspaces`, `/workspaces/${workspaceId}/queues`]) {
      const answer = await stranger.get(path);
      expect(answer.status, path).to.equal(404);
      expect(answer.headers.get("content-type")).to.match(/^application\/problem\+json/);
    }
    expect((await stranger.get("/organizations/no-such-organization/workspaces")).status).to.equal(404);
    const bad = await organization.owner.get(`/organizations/${organization.id}/workspaces?page=0&page_size=500`);
    expect(bad.status).to.equal(400);
    expect(bad.body.errors.map((error: { path: string }) => error.path).sort()).to.deep.equal(["page", "page_size"]);
  });

  it("renames a workspace (owners and supervisors) and keeps its humanized id", async () => {
    const { organization, workspaceId } = await queueFixture(h, "rename");
    const before = await organization.owner.get(`/workspaces/${workspaceId}`);
    const renamed = await organization.owner.patch(`/workspaces/${workspaceId}`, { name: "Renamed" });
    expect(renamed.status).to.equal(200);
    expect(renamed.body.data).to.deep.equal({ ...before.body.data, name: "Renamed" });
    expect((await h.member(organization.id, "supervisor").patch(`/workspaces/${workspaceId}`, { name: "Again" })).status).to.equal(200);
    for (const role of ["admin", "editor", "viewer"] as const) {
      const refused = await h.member(organization.id, role).patch(`/workspaces/${workspaceId}`, { name: "No" });
      expect(refused.status, role).to.equal(403);
    }
    expect((await organization.owner.patch(`/workspaces/${workspaceId}`, { name: "" })).status).to.equal(400);
    expect((await organization.owner.patch(`/workspaces/${workspaceId}`, { name: "X", humanized_id: "x" })).status).to.equal(400);
    expect((await h.organization("other").owner.patch(`/workspaces/${workspaceId}`, { name: "X" })).status).to.equal(404);
    expect((await organization.owner.get(`/workspaces/${workspaceId}`)).body.data).to.include({
      name: "Again",
      humanized_id: before.body.data.humanized_id,
    });
  });

  it("changes a queue's schema and options; documents keep their annotations and the change is announced", async () => {
    const { organization, queueId } = await queueFixture(h, "schema");
    const documentId = await documentFixture(organization.owner, queueId, { extracted: true });
    const before = await organization.owner.get(`/queues/${queueId}`);
    // Upload reads the queue (and caches it) before the change.
    const schema = [
      { key: "invoice_id", label: "Invoice number", type: "string" },
      { key: "po_number", label: "Purchase order", type: "string" },
    ];
    const changed = await organization.owner.patch(`/queues/${queueId}`, {
      name: "Renamed queue",
      annotation_schema: schema,
      duplicate_file_rejection: "enabled",
      extraction_engine: "external",
    });
    expect(changed.status).to.equal(200);
    expect(changed.body.data).to.deep.include({
      id: queueId,
      humanized_id: before.body.data.humanized_id,
      name: "Renamed queue",
      duplicate_file_rejection: "enabled",
      extraction_engine: "external",
    });
    expect(changed.body.data.annotation_schema.map((field: { key: string }) => field.key)).to.deep.equal(["invoice_id", "po_number"]);
    expect((await organization.owner.get(`/queues/${queueId}`)).body.data).to.deep.equal(changed.body.data);

    // The old document still shows total_due, which the schema no longer has; the new key starts empty.
    const document = await organization.owner.get(`/documents/${documentId}`);
    expect(document.body.data.annotations.map((annotation: { key: string }) => annotation.key)).to.have.members([
      "invoice_id",
      "total_due",
    ]);
    // Edits follow the new schema at once (the cached queue was forgotten).
    const edit = await organization.owner.patch(`/documents/${documentId}/annotations`, {
      annotations: [{ key: "po_number", value: "PO-7" }],
    });
    expect(edit.status).to.equal(200);
    const removed = await organization.owner.patch(`/documents/${documentId}/annotations`, {
      annotations: [{ key: "total_due", value: "1" }],
    });
    expect(removed.status).to.equal(400);

    const announced = await h.events.waitFor(
      (recorded) => recorded.event.type === "configuration.changed" && recorded.event.organization_id === organization.id,
    );
    expect(announced.event.data).to.deep.include({ resource: "queue", resource_id: queueId, queue_id: queueId, change: "updated" });
    const data = announced.event.data as { previous: Record<string, unknown>; current: Record<string, unknown> };
    expect(Object.keys(data.current).sort()).to.deep.equal(["annotation_schema", "duplicate_file_rejection", "extraction_engine", "name"]);
    expect(data.previous).to.deep.include({ name: before.body.data.name, duplicate_file_rejection: false, extraction_engine: "builtin" });
    expect(data.current).to.deep.include({ name: "Renamed queue", duplicate_file_rejection: true, extraction_engine: "external" });
  });

  it("changes only what is sent, refuses bad values and roles without changing anything", async () => {
    const { organization, queueId } = await queueFixture(h, "partial");
    const before = await organization.owner.get(`/queues/${queueId}`);
    const renamed = await organization.owner.patch(`/queues/${queueId}`, { name: "Only the name" });
    expect(renamed.body.data).to.deep.equal({ ...before.body.data, name: "Only the name" });

    const bad = await organization.owner.patch(`/queues/${queueId}`, {
      name: "Never",
      annotation_schema: [{ key: "a", label: "A", type: "colour" }],
      extraction_engine: "magic",
    });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors.map((error: { path: string }) => error.path)).to.include("extraction_engine");
    expect((await organization.owner.patch(`/queues/${queueId}`, { workspace_id: "elsewhere" })).status).to.equal(400);
    for (const role of ["editor", "viewer", "approver"] as const) {
      expect((await h.member(organization.id, role).patch(`/queues/${queueId}`, { name: "Never" })).status, role).to.equal(403);
    }
    const admin = h.member(organization.id, "admin", [queueId]);
    expect((await admin.patch(`/queues/${queueId}`, { name: "By its admin" })).status).to.equal(200);
    const otherAdmin = h.member(organization.id, "admin", [before.body.data.workspace_id]);
    expect((await otherAdmin.patch(`/queues/${queueId}`, { name: "Never" })).status).to.equal(404);
    expect((await h.organization("other").owner.patch(`/queues/${queueId}`, { name: "Never" })).status).to.equal(404);
    expect((await organization.owner.get(`/queues/${queueId}`)).body.data.name).to.equal("By its admin");
  });

  describe("deleting queues and workspaces", () => {
    /** Rows of the document database that still name the queue, table by table (only tables that have some). */
    async function rowsOf(queueId: string, documentIds: string[]): Promise<Record<string, number>> {
      const database = await connectDatabase({
        serverUrl: h.config.DATABASE_URL,
        database: h.config.DATABASE_NAME,
        logger: createLogger("test", "silent"),
      });
      try {
        const counts: Record<string, number> = {};
        const count = async (label: string, sql: string, bind: unknown[]) => {
          const row = await database.one<{ n: string }>(sql, bind);
          if (Number(row?.n) > 0) counts[label] = Number(row!.n);
        };
        await count("queues", "SELECT count(*) AS n FROM queues WHERE id = $1", [queueId]);
        for (const table of ["documents", "queue_validation_links", "automation_switches", "automation_switch_seeds"]) {
          await count(table, `SELECT count(*) AS n FROM ${table} WHERE queue_id = $1`, [queueId]);
        }
        for (const table of ["document_changes", "initial_validation_jobs", "file_chunks"]) {
          const column = table === "file_chunks" ? "file_key" : "document_id";
          await count(table, `SELECT count(*) AS n FROM ${table} WHERE ${column}::text = ANY($1::text[])`, [documentIds]);
        }
        return counts;
      } finally {
        await database.close();
      }
    }

    it("refuses (409 not_empty) while a document is not deleted, then removes the queue with its documents and files", async () => {
      const { organization, queueId } = await queueFixture(h, "delete-queue");
      const withFile = await organization.owner.post(`/queues/${queueId}/documents`, {
        file_name: "kept.pdf",
        content: Buffer.from("%PDF-1.4\n%kept\n").toString("base64"),
      });
      expect(withFile.status).to.equal(201);
      const plain = await documentFixture(organization.owner, queueId, { extracted: true });
      const ids = [withFile.body.data.id as string, plain];

      const refused = await organization.owner.call("DELETE", `/queues/${queueId}`);
      expect(refused.status).to.equal(409);
      expect(refused.body).to.include({ code: "not_empty", documents: 2 });
      for (const id of ids) await organization.owner.post(`/documents/${id}/status`, { status: "deleted" });
      expect((await rowsOf(queueId, ids)).file_chunks).to.be.greaterThan(0);

      for (const role of ["editor", "viewer"] as const) {
        expect((await h.member(organization.id, role).call("DELETE", `/queues/${queueId}`)).status, role).to.equal(403);
      }
      expect((await h.organization("other").owner.call("DELETE", `/queues/${queueId}`)).status).to.equal(404);

      const deleted = await organization.owner.call("DELETE", `/queues/${queueId}`);
      expect(deleted.status).to.equal(204);
      expect(await rowsOf(queueId, ids)).to.deep.equal({});
      expect((await organization.owner.get(`/queues/${queueId}`)).status).to.equal(404);
      expect((await organization.owner.post(`/queues/${queueId}/documents`, { file_name: "late.pdf" })).status).to.equal(404);
      expect((await organization.owner.call("DELETE", `/queues/${queueId}`)).status).to.equal(404);
      const announced = await h.events.waitFor(
        (recorded) => recorded.event.type === "queue.deleted" && (recorded.event.data as { queue_id: string }).queue_id === queueId,
      );
      expect(announced.event.actor_user_id).to.equal(organization.owner.userId);
    });

    it("deletes a workspace (owners and supervisors) with its queues, announcing each queue and the workspace", async () => {
      const { organization, workspaceId, queueId } = await queueFixture(h, "delete-workspace");
      const second = await organization.owner.post("/queues", { workspace_id: workspaceId, name: "Second" });
      const live = await documentFixture(organization.owner, second.body.data.id);
      expect((await organization.owner.call("DELETE", `/workspaces/${workspaceId}`)).body.code).to.equal("not_empty");
      expect((await h.member(organization.id, "admin").call("DELETE", `/workspaces/${workspaceId}`)).status).to.equal(403);
      await organization.owner.post(`/documents/${live}/status`, { status: "deleted" });

      const deleted = await h.member(organization.id, "supervisor").call("DELETE", `/workspaces/${workspaceId}`);
      expect(deleted.status).to.equal(204);
      expect((await organization.owner.get(`/workspaces/${workspaceId}`)).status).to.equal(404);
      expect(ids(await organization.owner.get(`/organizations/${organization.id}/workspaces`))).to.deep.equal([]);
      const events = await h.events.settle(
        (recorded) =>
          (recorded.event.type === "queue.deleted" || recorded.event.type === "workspace.deleted") &&
          recorded.event.organization_id === organization.id,
        3,
      );
      expect(events.map((recorded) => recorded.event.type).sort()).to.deep.equal(["queue.deleted", "queue.deleted", "workspace.deleted"]);
      expect(events.map((recorded) => (recorded.event.data as { queue_id?: string }).queue_id).filter(Boolean)).to.have.members([
        queueId,
        second.body.data.id,
      ]);
    });
  });
});
