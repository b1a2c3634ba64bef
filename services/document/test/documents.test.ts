import { randomUUID } from "node:crypto";
import { connectDatabase } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import { expect } from "chai";
import { change } from "./support/changes.js";
import { documentFixture, Harness, queueFixture, type UserApi } from "./support/harness.js";

describe("documents and annotations (membership is an in-process test double)", function () {
  this.timeout(30_000);
  let h: Harness;
  let owner: UserApi;
  let queueId: string;
  let workspaceId: string;
  let organizationId: string;

  before(async () => {
    h = await Harness.start();
    const fixture = await queueFixture(h, "docs");
    ({ owner, queueId, workspaceId } = fixture);
    organizationId = fixture.organization.id;
  });
  after(async () => {
    await h?.stop();
  });

  const version = async (id: string) => (await h.grpc.getDocument({ document_id: id })).document!.version;

  it("uploads a document as received, with its hierarchy ids, and reads it back", async () => {
    const uploaded = await owner.post(`/queues/${queueId}/documents`, {
      file_name: "invoice-001.pdf",
      annotations: [{ key: "invoice_id", value: "INV-001" }],
      confidence: 40,
    });
    expect(uploaded.status).to.equal(201);
    expect(uploaded.headers.get("location")).to.equal(`/api/v2/documents/${uploaded.body.data.id}`);
    expect(uploaded.body.data).to.deep.include({
      queue_id: queueId,
      workspace_id: workspaceId,
      organization_id: organizationId,
      file_name: "invoice-001.pdf",
      status: "received",
      annotations: [{ key: "invoice_id", value: "INV-001" }],
      messages: [],
      options: {},
      approvers: [],
      confidence: 40,
      duplicates: [],
      automation_blockers: [],
      source: { channel: "api" },
    });
    expect(Object.keys(uploaded.body.data).sort()).to.deep.equal(
      [
        "annotations",
        "approval",
        "approvers",
        "automation_blockers",
        "confidence",
        "created_at",
        "duplicates",
        "exports",
        "external_id",
        "file_name",
        "id",
        "messages",
        "options",
        "organization_id",
        "queue_id",
        "source",
        "status",
        "updated_at",
        "workspace_id",
      ].sort(),
    );
    const read = await owner.get(`/documents/${uploaded.body.data.id}`);
    expect(read.body.data).to.deep.equal(uploaded.body.data);
    expect((await owner.get(`/documents/${randomUUID()}`)).status).to.equal(404);
    expect((await owner.get("/documents/not-a-uuid")).status).to.equal(404);
  });

  it("records the AI's result: typed values derived, source ai, to_validate, one document.extracted and one status change", async () => {
    const id = await documentFixture(owner, queueId);
    const reply = await owner.post(`/documents/${id}/extraction`, {
      annotations: [
        { key: "total_due", value: "1 234,50", confidence: 88 },
        { key: "due_date", value: "31. 3. 2025", confidence: 70 },
        { key: "bank_account", value: "123/0100", values: [{ value: "456/0300" }] },
        { key: "line_items", value: "", rows: [{ activity: { value: "Consulting" }, total_incl_tax: { value: "1,234.50" } }] },
      ],
      confidence: 85,
    });
    expect(reply.status).to.equal(200);
    expect(reply.body.data).to.include({ status: "to_validate", confidence: 85 });
    expect(reply.body.data.annotations).to.deep.equal([
      { key: "due_date", value: "31. 3. 2025", isoDateValue: "2025-03-31", confidence: 70, source: "ai" },
      { key: "bank_account", value: "123/0100", values: [{ value: "456/0300" }], source: "ai" },
      { key: "total_due", value: "1 234,50", numericValue: 1234.5, confidence: 88, source: "ai" },
      {
        key: "line_items",
        value: "",
        rows: [{ activity: { value: "Consulting" }, total_incl_tax: { value: "1,234.50", numericValue: 1234.5 } }],
        source: "ai",
      },
    ]);
    const events = await h.events.settle((recorded) => recorded.event.data.document_id === id, 3);
    expect(events.map((recorded) => recorded.event.type)).to.have.members([
      "document.created",
      "document.extracted",
      "document.status_changed",
    ]);
    const extracted = events.find((recorded) => recorded.event.type === "document.extracted")!;
    expect(extracted.event.data).to.deep.include({
      document_id: id,
      queue_id: queueId,
      workspace_id: workspaceId,
      organization_id: organizationId,
      confidence: 85,
      version: await version(id),
    });
    expect(extracted.event.data.annotations).to.deep.equal(reply.body.data.annotations);
  });

  it("keeps where a page shows each value (position, cells too), drops it when a person types another value, and refuses a box off the page", async () => {
    const id = await documentFixture(owner, queueId);
    const position = { page: 1, box: [0.1, 0.2, 0.3, 0.24] };
    const cell = { page: 2, box: [0.5, 0.1, 0.9, 0.12] };
    const read = await owner.post(`/documents/${id}/extraction`, {
      annotations: [
        { key: "invoice_id", value: "INV-7", confidence: 93, position },
        { key: "total_due", value: "12.50", confidence: 90, position: { page: 1, box: [0.6, 0.8, 0.7, 0.82] } },
        { key: "line_items", value: "", rows: [{ activity: { value: "Paper", position: cell } }] },
      ],
      confidence: 90,
    });
    expect(read.status).to.equal(200);
    type Read = { key: string; position?: unknown; rows?: Record<string, { position?: unknown }>[] };
    // biome-ignore lint/suspicious/noExplicitAny: a test reads the answer's JSON by key
    const byKey = (annotations: Read[]): Record<string, any> =>
      Object.fromEntries(annotations.map((annotation) => [annotation.key, annotation]));
    expect(byKey(read.body.data.annotations).invoice_id.position).to.deep.equal(position);
    expect(byKey(read.body.data.annotations).line_items.rows[0].activity.position).to.deep.equal(cell);

    const typed = await owner.patch(`/documents/${id}/annotations`, { annotations: [{ key: "total_due", value: "13.50" }] });
    expect(typed.status).to.equal(200);
    expect(byKey(typed.body.data.annotations).total_due).to.not.have.property("position");
    expect(byKey(typed.body.data.annotations).invoice_id.position).to.deep.equal(position);

    // A person filling a field by clicking a word on the page sends the word's box with it.
    const clicked = { page: 1, box: [0.4, 0.5, 0.45, 0.52] };
    const filled = await owner.patch(`/documents/${id}/annotations`, {
      annotations: [{ key: "total_due", value: "14.50", position: clicked }],
    });
    expect(byKey(filled.body.data.annotations).total_due.position).to.deep.equal(clicked);
    // The same text pointed at elsewhere on the page: the value stays as it was, its place is the one clicked.
    const pointed = { page: 1, box: [0.11, 0.2, 0.31, 0.25] };
    const same = await owner.patch(`/documents/${id}/annotations`, {
      annotations: [{ key: "invoice_id", value: "INV-7", position: pointed }],
    });
    expect(byKey(same.body.data.annotations).invoice_id).to.deep.include({ value: "INV-7", confidence: 93, position: pointed });
    const stored = await owner.get(`/documents/${id}`);
    expect(byKey(stored.body.data.annotations).invoice_id.position).to.deep.equal(pointed);

    const versionBefore = await version(id);
    for (const bad of [
      { page: 1, box: [0.1, 0.2, 1.3, 0.3] },
      { page: 1, box: [0.5, 0.2, 0.4, 0.3] },
      { page: 0, box: [0.1, 0.2, 0.3, 0.3] },
      { page: 1, box: [0.1, 0.2, 0.3] },
      { page: 1, box: [0.1, 0.2, 0.3, 0.3], size: 3 },
    ]) {
      const refused = await owner.patch(`/documents/${id}/annotations`, {
        annotations: [{ key: "invoice_id", value: "INV-8", position: bad }],
      });
      expect(refused.status, JSON.stringify(bad)).to.equal(400);
    }
    expect(await version(id)).to.equal(versionBefore);
  });

  it("PATCH replaces the annotations it names, derives numericValue and isoDateValue, marks them user, and publishes one annotations_changed", async () => {
    const id = await documentFixture(owner, queueId, { extracted: true });
    const before = (await owner.get(`/documents/${id}`)).body.data;
    const reply = await owner.patch(`/documents/${id}/annotations`, {
      annotations: [
        { key: "total_due", value: "99.90", numericValue: 1, confidence: 91 },
        { key: "due_date", value: "2025-12-01" },
        { key: "invoice_id", value: "INV-1", confidence: 97, source: "ai" },
      ],
    });
    expect(reply.status).to.equal(200);
    const byKey = Object.fromEntries(reply.body.data.annotations.map((annotation: { key: string }) => [annotation.key, annotation]));
    expect(byKey.total_due).to.deep.equal({ key: "total_due", value: "99.90", numericValue: 99.9, source: "user" });
    expect(byKey.due_date).to.deep.equal({ key: "due_date", value: "2025-12-01", isoDateValue: "2025-12-01", source: "user" });
    expect(byKey.invoice_id).to.deep.equal(before.annotations.find((annotation: { key: string }) => annotation.key === "invoice_id"));

    const events = await h.events.settle(
      (recorded) => recorded.event.data.document_id === id && recorded.event.type === "document.annotations_changed",
      1,
    );
    expect(events).to.have.length(1);
    expect(events[0]!.event.data).to.deep.include({
      user_id: owner.userId,
      previous_annotations: before.annotations,
      annotations: reply.body.data.annotations,
      version: await version(id),
    });

    const unchanged = await owner.patch(`/documents/${id}/annotations`, { annotations: [{ key: "total_due", value: "99.90" }] });
    expect(unchanged.status).to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      h.events.events.filter(
        (recorded) => recorded.event.data.document_id === id && recorded.event.type === "document.annotations_changed",
      ),
    ).to.have.length(1);
  });

  it("refuses a bad number, a bad date, an unknown key, a column as a field and values of a single-value field with 400 naming each, saving nothing", async () => {
    const id = await documentFixture(owner, queueId, { extracted: true });
    const before = await owner.get(`/documents/${id}`);
    const versionBefore = await version(id);
    const reply = await owner.patch(`/documents/${id}/annotations`, {
      annotations: [
        { key: "invoice_id", value: "INV-2" },
        { key: "total_due", value: "twelve" },
        { key: "due_date", value: "2025-02-30" },
        { key: "colour", value: "red" },
        { key: "activity", value: "x" },
        { key: "iban", value: "CZ65", values: [{ value: "CZ66" }] },
        { key: "line_items", value: "", rows: [{ total_incl_tax: { value: "1.2.3,4,5" }, vat: { value: "21" } }] },
      ],
    });
    expect(reply.status).to.equal(400);
    expect(reply.body.code).to.equal("invalid_annotations");
    expect(reply.body.errors.map((error: { path: string }) => error.path)).to.have.members([
      "annotations.1.value",
      "annotations.2.value",
      "annotations.3.key",
      "annotations.4.key",
      "annotations.5.values",
      "annotations.6.rows.0.total_incl_tax.value",
      "annotations.6.rows.0.vat",
    ]);
    expect(reply.body.errors.find((error: { path: string }) => error.path === "annotations.3.key").message).to.contain("colour");
    expect((await owner.get(`/documents/${id}`)).body.data).to.deep.equal(before.body.data);
    expect(await version(id)).to.equal(versionBefore);

    const malformed = await owner.patch(`/documents/${id}/annotations`, {
      annotations: [{ key: "total_due", value: 12, numeric_value: 12 }],
    });
    expect(malformed.status).to.equal(400);
    expect(malformed.body.errors.map((error: { path: string }) => error.path)).to.have.members(["annotations.0.value", "annotations.0"]);
    const duplicate = await owner.patch(`/documents/${id}/annotations`, {
      annotations: [
        { key: "iban", value: "a" },
        { key: "iban", value: "b" },
      ],
    });
    expect(duplicate.status).to.equal(400);
    expect(await version(id)).to.equal(versionBefore);
  });

  it("refuses annotation changes of an exporting, exported or deleted document with 409, changing nothing", async () => {
    const ways: Array<[string, string[]]> = [
      ["exporting", ["ready_to_export", "exporting"]],
      ["exported", ["ready_to_export", "exported"]],
      ["deleted", ["deleted"]],
    ];
    for (const [status, moves] of ways) {
      const id = await documentFixture(owner, queueId, { extracted: true });
      for (const move of moves)
        expect((await owner.post(`/documents/${id}/status`, { status: move })).status, `${status}: ${move}`).to.equal(200);
      const before = (await owner.get(`/documents/${id}`)).body.data;
      expect(before.status).to.equal(status);
      const reply = await owner.patch(`/documents/${id}/annotations`, { annotations: [{ key: "iban", value: "x" }] });
      expect(reply.status, status).to.equal(409);
      expect(reply.body).to.include({ code: "document_not_editable", current_status: status });
      expect((await owner.get(`/documents/${id}`)).body.data, status).to.deep.equal(before);
    }
  });

  it("lists a queue's documents page by page, newest first by default (API.md), with the pagination object", async () => {
    const { owner: listOwner, queueId: listQueue } = await queueFixture(h, "list");
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) ids.unshift(await documentFixture(listOwner, listQueue, { fileName: `d${index}.pdf` }));
    const first = await listOwner.get(`/queues/${listQueue}/documents?page_size=2`);
    expect(first.status).to.equal(200);
    expect(first.body.pagination).to.deep.equal({ page: 1, page_size: 2, total: 5, total_pages: 3 });
    expect(first.body.data.map((document: { id: string }) => document.id)).to.deep.equal(ids.slice(0, 2));
    const last = await listOwner.get(`/queues/${listQueue}/documents?page=3&page_size=2`);
    expect(last.body.data.map((document: { id: string }) => document.id)).to.deep.equal(ids.slice(4));
    const beyond = await listOwner.get(`/queues/${listQueue}/documents?page=9&page_size=2`);
    expect(beyond.body).to.deep.equal({ data: [], pagination: { page: 9, page_size: 2, total: 5, total_pages: 3 } });
    const defaults = await listOwner.get(`/queues/${listQueue}/documents`);
    expect(defaults.body.pagination).to.deep.equal({ page: 1, page_size: 20, total: 5, total_pages: 1 });

    const oldestFirst = await listOwner.get(`/queues/${listQueue}/documents?sort=created_at`);
    expect(oldestFirst.body.data.map((document: { id: string }) => document.id)).to.deep.equal([...ids].reverse());

    for (const query of ["page=0", "page_size=0", "page_size=101", "page=x", "status=archived", "sort=name", "created_from=yesterday"]) {
      const bad = await listOwner.get(`/queues/${listQueue}/documents?${query}`);
      expect(bad.status, query).to.equal(400);
      expect(bad.body.errors).to.have.length.greaterThan(0);
    }
  });

  it("filters by status (one, several, comma-separated) and leaves deleted documents out unless asked for", async () => {
    const { owner: listOwner, queueId: listQueue } = await queueFixture(h, "filter");
    const received = await documentFixture(listOwner, listQueue);
    const toValidate = await documentFixture(listOwner, listQueue, { extracted: true });
    const postponed = await documentFixture(listOwner, listQueue, { extracted: true });
    await listOwner.post(`/documents/${postponed}/status`, { status: "postponed" });
    const deleted = await documentFixture(listOwner, listQueue);
    await listOwner.post(`/documents/${deleted}/status`, { status: "deleted" });
    const ids = async (query: string) =>
      (await listOwner.get(`/queues/${listQueue}/documents${query}`)).body.data.map((d: { id: string }) => d.id);

    expect(await ids("")).to.deep.equal([postponed, toValidate, received]);
    expect(await ids("?status=to_validate")).to.deep.equal([toValidate]);
    expect(await ids("?status=to_validate,postponed")).to.deep.equal([postponed, toValidate]);
    expect(await ids("?status=received&status=deleted&sort=created_at")).to.deep.equal([received, deleted]);
    expect((await listOwner.get(`/queues/${listQueue}/documents?status=postponed`)).body.pagination.total).to.equal(1);
  });

  it("applies the user schema: hidden fields are not returned, readonly and hidden ones cannot be changed (403 naming the field)", async () => {
    const clerk = h.member(organizationId, "editor");
    h.membership.setUserSchema(organizationId, clerk.userId, [
      { key: "iban", hidden: true, readonly: false },
      { key: "total_due", hidden: false, readonly: true },
      { key: "total_incl_tax", hidden: true, readonly: false },
    ]);
    const id = await documentFixture(owner, queueId, { extracted: true });
    await owner.patch(`/documents/${id}/annotations`, {
      annotations: [
        { key: "iban", value: "CZ6508000000192000145399" },
        { key: "line_items", value: "", rows: [{ activity: { value: "A" }, total_incl_tax: { value: "10" } }] },
      ],
    });
    await h.grpc.applyDocumentChanges(
      change(id, {
        messages_json: JSON.stringify([{ key: "iban", message: "IBAN checksum", severity: "warning" }]),
        options_json: JSON.stringify({ iban: [{ label: "Main", value: "CZ65" }] }),
      }),
    );

    const seen = (await clerk.get(`/documents/${id}`)).body.data;
    expect(seen.annotations.map((annotation: { key: string }) => annotation.key)).not.to.include("iban");
    expect(seen.annotations.find((annotation: { key: string }) => annotation.key === "line_items").rows).to.deep.equal([
      { activity: { value: "A" } },
    ]);
    expect(seen.messages).to.deep.equal([]);
    expect(seen.options).to.deep.equal({});
    const listed = (await clerk.get(`/queues/${queueId}/documents`)).body.data.find((document: { id: string }) => document.id === id);
    expect(listed.annotations.map((annotation: { key: string }) => annotation.key)).not.to.include("iban");

    const readonly = await clerk.patch(`/documents/${id}/annotations`, { annotations: [{ key: "total_due", value: "1" }] });
    expect(readonly.status).to.equal(403);
    expect(readonly.body.code).to.equal("field_not_writable");
    expect(readonly.body.detail).to.contain("total_due");
    expect(readonly.body.errors).to.deep.equal([{ path: "annotations.0.key", message: "the field total_due is read-only for you" }]);
    const hidden = await clerk.patch(`/documents/${id}/annotations`, { annotations: [{ key: "iban", value: "x" }] });
    expect(hidden.status).to.equal(403);
    expect(hidden.body.detail).to.contain("iban");

    const sameValue = seen.annotations.find((annotation: { key: string }) => annotation.key === "total_due");
    const edit = await clerk.patch(`/documents/${id}/annotations`, {
      annotations: [sameValue, { key: "line_items", value: "", rows: [{ activity: { value: "B" } }] }],
    });
    expect(edit.status).to.equal(200);
    const full = JSON.parse((await h.grpc.getDocument({ document_id: id })).document!.annotations_json);
    expect(full.find((annotation: { key: string }) => annotation.key === "line_items").rows).to.deep.equal([
      { activity: { value: "B" }, total_incl_tax: { value: "10", numericValue: 10 } },
    ]);
    expect(full.find((annotation: { key: string }) => annotation.key === "iban").value).to.equal("CZ6508000000192000145399");
  });

  it("publishes nothing for a change that rolls back at commit, and the document keeps its status", async () => {
    const id = await documentFixture(owner, queueId, { extracted: true, fileName: "rollback.pdf" });
    const database = await connectDatabase({
      serverUrl: h.config.DATABASE_URL,
      database: h.config.DATABASE_NAME,
      logger: createLogger("test", "silent"),
    });
    try {
      // A deferred constraint fails at COMMIT, after the document row and the outbox row were both written.
      await database.run(`
        CREATE FUNCTION refuse_rollback_pdf() RETURNS trigger AS $$
        BEGIN
          IF NEW.file_name = 'rollback.pdf' AND NEW.status = 'postponed' THEN RAISE EXCEPTION 'refused at commit'; END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql;
        CREATE CONSTRAINT TRIGGER refuse_rollback_pdf AFTER UPDATE ON documents DEFERRABLE INITIALLY DEFERRED
          FOR EACH ROW EXECUTE FUNCTION refuse_rollback_pdf();
      `);
      const seenBefore = h.events.events.filter((recorded) => recorded.event.data.document_id === id).length;
      const failed = await owner.post(`/documents/${id}/status`, { status: "postponed" });
      expect(failed.status).to.equal(500);
      expect(failed.body.detail).not.to.contain("refused at commit");
      expect((await owner.get(`/documents/${id}`)).body.data.status).to.equal("to_validate");

      const moved = await owner.post(`/documents/${id}/status`, { status: "rejected" });
      expect(moved.status).to.equal(200);
      await h.events.settle((recorded) => recorded.event.data.document_id === id && recorded.event.data.status === "rejected", 1);
      const after = h.events.events.filter((recorded) => recorded.event.data.document_id === id).slice(seenBefore);
      expect(after.map((recorded) => recorded.event.data.status)).to.deep.equal(["rejected"]);
    } finally {
      await database.run("DROP TRIGGER IF EXISTS refuse_rollback_pdf ON documents; DROP FUNCTION IF EXISTS refuse_rollback_pdf();");
      await database.close();
    }
  });
});
