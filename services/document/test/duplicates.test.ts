import { createHash, randomBytes, randomUUID } from "node:crypto";
import { connectDatabase, type Sql } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import { expect } from "chai";
import { DocumentStore } from "../src/store/document-store.js";
import { change } from "./support/changes.js";
import { Harness, queueFixture, type UserApi } from "./support/harness.js";

interface Message {
  key: string | null;
  message: string;
  severity: string;
}

const fileOf = (text: string) => Buffer.from(`%PDF-1.7 ${text} ${randomBytes(8).toString("hex")}`);
const base64 = (bytes: Buffer) => bytes.toString("base64");
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const warnings = (messages: Message[]) =>
  messages.filter((message) => message.severity === "warning" && message.message.includes("duplicate"));

/** Uploads a document and records an extraction naming its supplier and invoice number. */
async function extractedInvoice(
  api: UserApi,
  queueId: string,
  invoice: { taxId?: string; registerId?: string; invoiceId: string },
  content?: Buffer,
): Promise<string> {
  const uploaded = await api.post(`/queues/${queueId}/documents`, {
    file_name: "invoice.pdf",
    ...(content ? { content: base64(content) } : {}),
  });
  expect(uploaded.status, JSON.stringify(uploaded.body)).to.equal(201);
  const id = uploaded.body.data.id as string;
  const extracted = await api.post(`/documents/${id}/extraction`, {
    annotations: [
      { key: "invoice_id", value: invoice.invoiceId },
      ...(invoice.taxId ? [{ key: "supplier_tax_id", value: invoice.taxId }] : []),
      ...(invoice.registerId ? [{ key: "supplier_register_id", value: invoice.registerId }] : []),
    ],
    confidence: 90,
  });
  expect(extracted.status, JSON.stringify(extracted.body)).to.equal(200);
  return id;
}

describe("duplicate detection (membership is an in-process test double)", function () {
  this.timeout(30_000);
  let h: Harness;
  let database: Sql;

  before(async () => {
    h = await Harness.start();
    database = await connectDatabase({
      serverUrl: h.config.DATABASE_URL,
      database: h.config.DATABASE_NAME,
      logger: createLogger("test", "silent"),
    });
  });
  after(async () => {
    await database?.close();
    await h?.stop();
  });

  it("flags two extractions of one supplier's invoice number, written differently, on both documents with a warning naming the other", async () => {
    const { owner, queueId } = await queueFixture(h, "dup-invoice");
    const first = await extractedInvoice(owner, queueId, { taxId: "CZ 123 45 678", invoiceId: "INV 2024/001" });
    const firstAlone = await owner.get(`/documents/${first}`);
    expect(firstAlone.body.data.duplicates).to.deep.equal([]);
    expect(warnings(firstAlone.body.data.messages)).to.deep.equal([]);

    const second = await extractedInvoice(owner, queueId, { taxId: "cz12345678", invoiceId: "  inv2024 / 001 " });
    const read = await owner.get(`/documents/${second}`);
    expect(read.body.data.duplicates).to.deep.equal([first]);
    expect(warnings(read.body.data.messages)).to.deep.equal([
      { key: null, severity: "warning", message: `This document may be a duplicate of ${first} (same supplier and invoice_id).` },
    ]);
    const earlier = await owner.get(`/documents/${first}`);
    expect(earlier.body.data.duplicates).to.deep.equal([second]);
    expect(warnings(earlier.body.data.messages)[0]!.message).to.include(second);

    const listed = await owner.get(`/queues/${queueId}/documents?sort=created_at`);
    expect(listed.body.data.map((document: { id: string; duplicates: string[] }) => [document.id, document.duplicates])).to.deep.equal([
      [first, [second]],
      [second, [first]],
    ]);
  });

  it("does not flag the same invoice number of another supplier, nor one without a supplier; a register id names the supplier without a tax id", async () => {
    const { owner, queueId } = await queueFixture(h, "dup-supplier");
    const acme = await extractedInvoice(owner, queueId, { taxId: "CZ111", invoiceId: "2024-7" });
    const other = await extractedInvoice(owner, queueId, { taxId: "CZ222", invoiceId: "2024-7" });
    const nobody = await extractedInvoice(owner, queueId, { invoiceId: "2024-7" });
    const alsoNobody = await extractedInvoice(owner, queueId, { invoiceId: "2024-7" });
    // The tax id decides when there is one: the same register id under different tax ids is two suppliers.
    const byTaxId = await extractedInvoice(owner, queueId, { taxId: "CZ333", registerId: "R-1", invoiceId: "2024-7" });
    const registered = await extractedInvoice(owner, queueId, { registerId: "r 1", invoiceId: "2024-7" });
    const registeredAgain = await extractedInvoice(owner, queueId, { registerId: "R1", invoiceId: "2024-7" });
    for (const id of [acme, other, nobody, alsoNobody, byTaxId]) {
      expect((await owner.get(`/documents/${id}`)).body.data.duplicates, id).to.deep.equal([]);
    }
    expect((await owner.get(`/documents/${registered}`)).body.data.duplicates).to.deep.equal([registeredAgain]);
  });

  it("flags uploads of the same file bytes across the organization's queues, before any extraction", async () => {
    const { owner, queueId, workspaceId } = await queueFixture(h, "dup-file");
    const otherQueue = await owner.post("/queues", { workspace_id: workspaceId, name: "Other invoices" });
    const file = fileOf("same file");
    const first = await owner.post(`/queues/${queueId}/documents`, { file_name: "a.pdf", content: base64(file) });
    const second = await owner.post(`/queues/${otherQueue.body.data.id}/documents`, { file_name: "b.pdf", content: base64(file) });
    const different = await owner.post(`/queues/${queueId}/documents`, { file_name: "a.pdf", content: base64(fileOf("another")) });
    expect(first.body.data.duplicates).to.deep.equal([]);
    expect(second.status).to.equal(201);
    expect(second.body.data.duplicates).to.deep.equal([first.body.data.id]);
    expect(warnings(second.body.data.messages)[0]!.message).to.equal(
      `This document may be a duplicate of ${first.body.data.id} (same file).`,
    );
    expect((await owner.get(`/documents/${first.body.data.id}`)).body.data.duplicates).to.deep.equal([second.body.data.id]);
    expect(different.body.data.duplicates).to.deep.equal([]);
    const row = await database.one<{ file_sha256: string }>("SELECT file_sha256 FROM documents WHERE id = $1", [first.body.data.id]);
    expect(row!.file_sha256).to.equal(sha256(file));
  });

  it("names a document once with both reasons when it has the same file and the same invoice", async () => {
    const { owner, queueId } = await queueFixture(h, "dup-both");
    const file = fileOf("both");
    const first = await extractedInvoice(owner, queueId, { taxId: "CZ9", invoiceId: "A-1" }, file);
    const second = await extractedInvoice(owner, queueId, { taxId: "CZ9", invoiceId: "a-1" }, file);
    const read = await owner.get(`/documents/${second}`);
    expect(read.body.data.duplicates).to.deep.equal([first]);
    expect(warnings(read.body.data.messages)[0]!.message).to.equal(
      `This document may be a duplicate of ${first} (same supplier and invoice_id, same file).`,
    );
  });

  it("never matches a document of another organization, by invoice or by file", async () => {
    const mine = await queueFixture(h, "dup-tenant-a");
    const theirs = await queueFixture(h, "dup-tenant-b");
    const file = fileOf("tenant");
    const own = await extractedInvoice(mine.owner, mine.queueId, { taxId: "CZ777", invoiceId: "T-1" }, file);
    const foreign = await extractedInvoice(theirs.owner, theirs.queueId, { taxId: "CZ777", invoiceId: "T-1" }, file);
    expect((await mine.owner.get(`/documents/${own}`)).body.data.duplicates).to.deep.equal([]);
    expect((await theirs.owner.get(`/documents/${foreign}`)).body.data.duplicates).to.deep.equal([]);
    expect(warnings((await theirs.owner.get(`/documents/${foreign}`)).body.data.messages)).to.deep.equal([]);
  });

  it("treats a deleted document as a duplicate of nothing: the other one's warning goes, and the deleted one shows none", async () => {
    const { owner, queueId } = await queueFixture(h, "dup-deleted");
    const file = fileOf("deleted");
    const kept = await extractedInvoice(owner, queueId, { taxId: "CZ5", invoiceId: "D-1" }, file);
    const removed = await extractedInvoice(owner, queueId, { taxId: "CZ5", invoiceId: "D-1" }, file);
    expect((await owner.get(`/documents/${kept}`)).body.data.duplicates).to.deep.equal([removed]);

    const deleted = await owner.post(`/documents/${removed}/status`, { status: "deleted" });
    expect(deleted.status).to.equal(200);
    expect(deleted.body.data.duplicates).to.deep.equal([]);
    expect(warnings(deleted.body.data.messages)).to.deep.equal([]);
    const read = await owner.get(`/documents/${kept}`);
    expect(read.body.data.duplicates).to.deep.equal([]);
    expect(warnings(read.body.data.messages)).to.deep.equal([]);

    const later = await extractedInvoice(owner, queueId, { taxId: "CZ5", invoiceId: "D-1" }, file);
    expect((await owner.get(`/documents/${later}`)).body.data.duplicates).to.deep.equal([kept]);
  });

  it("replaces the warning when the invoice number changes (extraction, edit), never piles it up, and leaves other messages alone", async () => {
    const { owner, queueId } = await queueFixture(h, "dup-replace");
    const first = await extractedInvoice(owner, queueId, { taxId: "CZ42", invoiceId: "R-1" });
    const other = await extractedInvoice(owner, queueId, { taxId: "CZ42", invoiceId: "R-2" });

    // Annotations given at upload are compared at once; the extraction then replaces them.
    const uploaded = await owner.post(`/queues/${queueId}/documents`, {
      file_name: "c.pdf",
      annotations: [
        { key: "supplier_tax_id", value: "CZ42" },
        { key: "invoice_id", value: "R-1" },
      ],
    });
    const id = uploaded.body.data.id as string;
    expect(uploaded.body.data.duplicates).to.deep.equal([first]);
    expect(warnings(uploaded.body.data.messages)).to.have.lengthOf(1);

    const extracted = await owner.post(`/documents/${id}/extraction`, {
      annotations: [{ key: "invoice_id", value: "R-2" }],
      confidence: 80,
    });
    expect(extracted.body.data.duplicates).to.deep.equal([other]);
    expect(warnings(extracted.body.data.messages)).to.have.lengthOf(1);
    expect(warnings(extracted.body.data.messages)[0]!.message).to.include(other).and.not.include(first);

    const applied = await h.grpc.applyDocumentChanges(
      change(id, {
        source: "automation",
        messages_json: JSON.stringify([{ key: "total_due", message: "Check the total", severity: "warning" }]),
      }),
    );
    expect(applied.applied).to.equal(true);

    const unique = await owner.patch(`/documents/${id}/annotations`, { annotations: [{ key: "invoice_id", value: "R-3" }] });
    expect(unique.body.data.duplicates).to.deep.equal([]);
    expect(unique.body.data.messages).to.deep.equal([{ key: "total_due", message: "Check the total", severity: "warning" }]);

    for (let round = 0; round < 2; round += 1) {
      const back = await owner.patch(`/documents/${id}/annotations`, {
        annotations: [{ key: "invoice_id", value: round === 0 ? "R-1" : "r-1 " }],
      });
      expect(back.body.data.duplicates).to.deep.equal([first]);
      expect(back.body.data.messages).to.have.lengthOf(2);
      expect(warnings(back.body.data.messages)).to.have.lengthOf(1);
    }
    // The warning is worked out on reading; it is not stored with the document (nor in gRPC records).
    const record = await h.grpc.getDocument({ document_id: id });
    expect(JSON.parse(record.document!.messages_json)).to.deep.equal([
      { key: "total_due", message: "Check the total", severity: "warning" },
    ]);
  });

  it("lists only duplicates the caller may read and counts the others in the warning", async () => {
    const { organization, owner, queueId, workspaceId } = await queueFixture(h, "dup-visibility");
    const restricted = await owner.post("/queues", { workspace_id: workspaceId, name: "Restricted" });
    const restrictedId = restricted.body.data.id as string;
    const hidden = await extractedInvoice(owner, queueId, { taxId: "CZ8", invoiceId: "V-1" });
    const visible = await extractedInvoice(owner, restrictedId, { taxId: "CZ8", invoiceId: "V-1" });
    const third = await extractedInvoice(owner, restrictedId, { taxId: "CZ8", invoiceId: "V-1" });

    const editor = h.member(organization.id, "editor", [restrictedId]);
    const read = await editor.get(`/documents/${third}`);
    expect(read.body.data.duplicates).to.deep.equal([visible]);
    const [warning] = warnings(read.body.data.messages);
    expect(warning!.message).to.equal(
      `This document may be a duplicate of ${visible} (same supplier and invoice_id), 1 document in queues you cannot open (same supplier and invoice_id).`,
    );
    expect(warning!.message).not.to.include(hidden);
    expect((await owner.get(`/documents/${third}`)).body.data.duplicates).to.deep.equal([hidden, visible]);
  });

  describe("a queue with duplicate_file_rejection", () => {
    it("answers 409 duplicate_document naming the existing document, and stores and announces nothing", async () => {
      const { organization, owner, queueId, workspaceId } = await queueFixture(h, "dup-reject");
      const strict = await owner.post("/queues", { workspace_id: workspaceId, name: "Strict", duplicate_file_rejection: "enabled" });
      expect(strict.status).to.equal(201);
      expect(strict.body.data.duplicate_file_rejection).to.equal("enabled");
      const strictId = strict.body.data.id as string;
      expect((await owner.get(`/queues/${strictId}`)).body.data.duplicate_file_rejection).to.equal("enabled");
      expect((await owner.get(`/queues/${queueId}`)).body.data.duplicate_file_rejection).to.equal("disabled");

      const file = fileOf("rejected");
      const existing = await owner.post(`/queues/${queueId}/documents`, { file_name: "a.pdf", content: base64(file) });
      expect(existing.status).to.equal(201);

      const refused = await owner.post(`/queues/${strictId}/documents`, { file_name: "again.pdf", content: base64(file) });
      expect(refused.status).to.equal(409);
      expect(refused.headers.get("content-type")).to.include("application/problem+json");
      expect(refused.body).to.include({
        code: "duplicate_document",
        type: "/problems/duplicate_document",
        duplicate_of: existing.body.data.id,
      });
      expect(refused.body.detail).to.include(existing.body.data.id);
      expect((await owner.get(`/queues/${strictId}/documents`)).body.data).to.deep.equal([]);

      // Within one strict queue too; another file, or a name without bytes, is welcome.
      const other = fileOf("other");
      expect((await owner.post(`/queues/${strictId}/documents`, { file_name: "b.pdf", content: base64(other) })).status).to.equal(201);
      expect((await owner.post(`/queues/${strictId}/documents`, { file_name: "b.pdf", content: base64(other) })).status).to.equal(409);
      expect((await owner.post(`/queues/${strictId}/documents`, { file_name: "b.pdf" })).status).to.equal(201);

      // A queue without the option takes the file again and flags it.
      const loose = await owner.post(`/queues/${queueId}/documents`, { file_name: "a.pdf", content: base64(file) });
      expect(loose.status).to.equal(201);
      expect(loose.body.data.duplicates).to.deep.equal([existing.body.data.id]);

      // Someone who cannot read the existing document learns that it exists, not its id.
      const editor = h.member(organization.id, "editor", [strictId]);
      const blind = await editor.post(`/queues/${strictId}/documents`, { file_name: "again.pdf", content: base64(file) });
      expect(blind.status).to.equal(409);
      expect(blind.body.duplicate_of).to.equal(null);
      expect(blind.body.detail).not.to.include(existing.body.data.id);

      // Once the others are deleted, the file is new again.
      for (const id of [existing.body.data.id, loose.body.data.id]) {
        expect((await owner.post(`/documents/${id}/status`, { status: "deleted" })).status).to.equal(200);
      }
      expect((await owner.post(`/queues/${strictId}/documents`, { file_name: "again.pdf", content: base64(file) })).status).to.equal(201);

      const created = await h.events.settle(
        (recorded) => recorded.event.organization_id === organization.id && recorded.event.type === "document.created",
        5,
      );
      expect(created).to.have.lengthOf(5);
    });

    it("lets only one of four simultaneous uploads of a file in", async () => {
      const { owner, workspaceId } = await queueFixture(h, "dup-race");
      const strict = await owner.post("/queues", { workspace_id: workspaceId, name: "Strict", duplicate_file_rejection: "enabled" });
      const content = base64(fileOf("race"));
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => owner.post(`/queues/${strict.body.data.id}/documents`, { file_name: "r.pdf", content })),
      );
      expect(answers.map((answer) => answer.status).sort()).to.deep.equal([201, 409, 409, 409]);
    });

    it("refuses bad values of the option and of content with 400, creating nothing", async () => {
      const { owner, workspaceId, queueId } = await queueFixture(h, "dup-option");
      const humanizedId = `strict-${randomBytes(3).toString("hex")}`;
      for (const value of [true, "yes", null, 1]) {
        const answer = await owner.post("/queues", {
          workspace_id: workspaceId,
          name: "Strict",
          humanized_id: humanizedId,
          duplicate_file_rejection: value,
        });
        expect(answer.status, String(value)).to.equal(400);
        expect(answer.headers.get("content-type")).to.include("application/problem+json");
        expect(answer.body.errors.map((error: { path: string }) => error.path)).to.deep.equal(["duplicate_file_rejection"]);
      }
      // Nothing was created: the humanized id is still free.
      expect((await owner.get(`/queues/${humanizedId}`)).status).to.equal(404);
      const made = await owner.post("/queues", { workspace_id: workspaceId, name: "Strict", humanized_id: humanizedId });
      expect(made.status).to.equal(201);
      expect(made.body.data.duplicate_file_rejection).to.equal("disabled");

      for (const content of ["not base64!", "", 42]) {
        const answer = await owner.post(`/queues/${queueId}/documents`, { file_name: "x.pdf", content });
        expect(answer.status, String(content)).to.equal(400);
        expect(answer.body.errors.map((error: { path: string }) => error.path)).to.deep.equal(["content"]);
      }
      expect((await owner.get(`/queues/${queueId}/documents`)).body.data).to.deep.equal([]);
    });
  });

  it("publishes document.created with the file's SHA-256 and the uploader as actor; every event names its actor", async () => {
    const { organization, owner, queueId } = await queueFixture(h, "dup-events");
    const file = fileOf("events");
    const uploaded = await owner.post(`/queues/${queueId}/documents`, { file_name: "e.pdf", content: base64(file) });
    const bare = await owner.post(`/queues/${queueId}/documents`, { file_name: "bare.pdf" });
    const created = await h.events.settle(
      (recorded) => recorded.event.organization_id === organization.id && recorded.event.type === "document.created",
      2,
    );
    const byDocument = new Map(created.map((recorded) => [recorded.event.data.document_id, recorded]));
    const event = byDocument.get(uploaded.body.data.id)!;
    expect(event.msgId).to.equal(event.event.id);
    expect(event.event).to.deep.include({ organization_id: organization.id, actor_user_id: owner.userId });
    expect(event.event.data).to.deep.equal({
      document_id: uploaded.body.data.id,
      queue_id: queueId,
      workspace_id: uploaded.body.data.workspace_id,
      organization_id: organization.id,
      file_name: "e.pdf",
      file_sha256: sha256(file),
      content_type: "application/pdf",
      file_size: file.length,
      has_file: true,
      channel: "api",
    });
    expect(byDocument.get(bare.body.data.id)!.event.data).to.deep.include({
      file_sha256: null,
      content_type: null,
      file_size: null,
      has_file: false,
    });

    const id = uploaded.body.data.id as string;
    await owner.post(`/documents/${id}/extraction`, { annotations: [{ key: "invoice_id", value: "E-1" }], confidence: 90 });
    await owner.patch(`/documents/${id}/annotations`, { annotations: [{ key: "invoice_id", value: "E-2" }] });
    const byService = await h.grpc.applyDocumentChanges(
      change(id, { source: "automation", annotations_json: JSON.stringify([{ key: "contract", value: "K" }]) }),
    );
    expect(byService.applied).to.equal(true);

    const ofDocument = (type: string) => (recorded: { event: { type: string; data: Record<string, unknown> } }) =>
      recorded.event.type === type && recorded.event.data.document_id === id;
    const [extracted] = await h.events.settle(ofDocument("document.extracted"), 1);
    const changed = await h.events.settle(ofDocument("document.annotations_changed"), 2);
    const [moved] = await h.events.settle(ofDocument("document.status_changed"), 1);
    expect((extracted!.event as { actor_user_id?: string }).actor_user_id).to.equal(owner.userId);
    expect((moved!.event as { actor_user_id?: string }).actor_user_id).to.equal(owner.userId);
    const actors = changed.map((recorded) => [
      recorded.event.data.user_id,
      (recorded.event as { actor_user_id?: string | null }).actor_user_id,
    ]);
    expect(actors).to.have.deep.members([
      [owner.userId, owner.userId],
      [null, null],
    ]);
    const [queueCreated] = await h.events.settle(
      (recorded) => recorded.event.type === "queue.created" && recorded.event.data.queue_id === queueId,
      1,
    );
    expect((queueCreated!.event as { actor_user_id?: string }).actor_user_id).to.equal(owner.userId);
  });

  it("looks duplicates up through the organization's partial indexes (the store's own queries, planned without sequential scans)", async () => {
    const captured: Array<{ sql: string; bind: unknown[] }> = [];
    const capturing = Object.assign(Object.create(database) as Sql, {
      rows: async (text: string, bind: unknown[] = []) => {
        captured.push({ sql: text, bind });
        return [];
      },
    });
    const store = new DocumentStore(capturing);
    await store.findDuplicates([randomUUID()]);
    const plan = async (query: { sql: string; bind: unknown[] }) => {
      const rows = await database.transaction((tx) => database.rows<{ "QUERY PLAN": string }>(`EXPLAIN ${query.sql}`, query.bind, tx), {
        settings: { enable_seqscan: "off" },
      });
      return rows.map((row) => row["QUERY PLAN"]).join("\n");
    };
    const lookup = await plan(captured[0]!);
    expect(lookup).to.include("documents_same_invoice").and.include("documents_same_file");
  });
});
