import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { change } from "./support/changes.js";
import { expectGrpcError } from "./support/grpc-errors.js";
import { documentFixture, Harness, queueFixture, type UserApi } from "./support/harness.js";

type Annotation = { key: string; value: string; source?: string; rows?: Array<Record<string, { value: string; numericValue?: number }>> };

describe("changes from other contexts: gRPC ApplyDocumentChanges, GetDocument and the validation seam (membership is an in-process test double)", function () {
  this.timeout(30_000);
  let h: Harness;
  let owner: UserApi;
  let queueId: string;

  before(async () => {
    h = await Harness.start();
    ({ owner, queueId } = await queueFixture(h, "apply"));
  });
  afterEach(() => {
    h.validator.answer = async () => undefined;
  });
  after(async () => {
    await h?.stop();
  });

  const current = async (id: string) => (await h.grpc.getDocument({ document_id: id })).document!;
  const annotationsOf = async (id: string): Promise<Annotation[]> => JSON.parse((await current(id)).annotations_json);
  const fieldValue = async (id: string, key: string) => (await annotationsOf(id)).find((annotation) => annotation.key === key)?.value;

  it("GetDocument answers the whole document with its version; NOT_FOUND for an unknown id", async () => {
    const id = await documentFixture(owner, queueId, { extracted: true });
    const document = await current(id);
    expect(document).to.include({ id, queue_id: queueId, status: "to_validate", version: 2, confidence: 93, file_name: "invoice.pdf" });
    expect(JSON.parse(document.messages_json)).to.deep.equal([]);
    expect(JSON.parse(document.options_json)).to.deep.equal({});
    await expectGrpcError(h.grpc.getDocument({ document_id: randomUUID() }), "NOT_FOUND");
  });

  it("refuses a late answer based on an older version (version_conflict), so the newer user edit stays", async () => {
    const id = await documentFixture(owner, queueId, { extracted: true });
    const basedOn = (await current(id)).version;
    await owner.patch(`/documents/${id}/annotations`, { annotations: [{ key: "invoice_id", value: "typed by the user" }] });
    const late = await h.grpc.applyDocumentChanges(
      change(id, {
        source: "learning",
        expected_version: basedOn,
        annotations_json: JSON.stringify([{ key: "invoice_id", value: "learned" }]),
      }),
    );
    expect(late).to.include({ applied: false, reason: "version_conflict" });
    expect(late.document!.version).to.equal(basedOn + 1);
    expect(await fieldValue(id, "invoice_id")).to.equal("typed by the user");

    const fresh = await h.grpc.applyDocumentChanges(
      change(id, {
        source: "learning",
        expected_version: basedOn + 1,
        annotations_json: JSON.stringify([{ key: "contract", value: "C-7", source: "learned" }]),
      }),
    );
    expect(fresh).to.include({ applied: true, reason: "" });
    expect(fresh.document!.version).to.equal(basedOn + 2);
    expect((await annotationsOf(id)).find((annotation) => annotation.key === "contract")).to.deep.equal({
      key: "contract",
      value: "C-7",
      source: "learned",
    });

    const events = await h.events.settle(
      (recorded) => recorded.event.data.document_id === id && recorded.event.type === "document.annotations_changed",
      2,
    );
    expect(events.map((recorded) => recorded.event.data.user_id)).to.deep.equal([owner.userId, null]);
  });

  it("applies a key seen before only once, answering the first outcome again", async () => {
    const id = await documentFixture(owner, queueId, { extracted: true });
    const request = change(id, {
      source: "automation",
      idempotency_key: "event-42",
      annotations_json: JSON.stringify([{ key: "contract", value: "K-1" }]),
      approvers: [randomUUID()],
      applied_rules: [randomUUID()],
      status: "in_approval",
    });
    const first = await h.grpc.applyDocumentChanges(request);
    const again = await h.grpc.applyDocumentChanges(request);
    expect(first).to.include({ applied: true, reason: "" });
    expect(again).to.include({ applied: true, reason: "" });
    expect(again.document!.version).to.equal(first.document!.version);
    expect(first.document).to.include({ status: "in_approval" });
    expect(first.document!.approvers).to.deep.equal(request.approvers);
    const events = await h.events.settle(
      (recorded) => recorded.event.data.document_id === id && recorded.event.type === "document.status_changed",
      2,
    );
    expect(events.map((recorded) => recorded.event.data.status)).to.deep.equal(["to_validate", "in_approval"]);
    expect(events[1]!.event.data.user_id).to.equal(null);

    const refusedOnce = change(id, { source: "automation", idempotency_key: "event-43", status: "exported" });
    expect(await h.grpc.applyDocumentChanges(refusedOnce)).to.include({ applied: false, reason: "status_move_not_allowed" });
    expect(await h.grpc.applyDocumentChanges(refusedOnce)).to.include({ applied: false, reason: "status_move_not_allowed" });
  });

  it("replaces single cells, sets per-document options and replaces only its own source's messages", async () => {
    const id = await documentFixture(owner, queueId, { extracted: true });
    await owner.patch(`/documents/${id}/annotations`, {
      annotations: [
        {
          key: "line_items",
          value: "",
          rows: [{ activity: { value: "A" } }, { activity: { value: "B" }, total_incl_tax: { value: "2" } }],
        },
      ],
    });
    await h.grpc.applyDocumentChanges(
      change(id, { source: "automation", messages_json: JSON.stringify([{ key: null, message: "Rule 1 fired", severity: "info" }]) }),
    );
    const answer = await h.grpc.applyDocumentChanges(
      change(id, {
        cells_json: JSON.stringify([{ key: "total_incl_tax", row_index: 1, value: "20,5" }]),
        options_json: JSON.stringify({ supplier_name: [{ label: "ACME s.r.o.", value: "acme" }] }),
        messages_json: JSON.stringify([{ key: "total_due", message: "Check the total", severity: "warning" }]),
        replace_messages: true,
      }),
    );
    expect(answer.applied).to.equal(true);
    const second = await h.grpc.applyDocumentChanges(
      change(id, { messages_json: JSON.stringify([{ key: "iban", message: "Unknown IBAN", severity: "info" }]), replace_messages: true }),
    );
    expect(JSON.parse(second.document!.messages_json)).to.deep.equal([
      { key: null, message: "Rule 1 fired", severity: "info" },
      { key: "iban", message: "Unknown IBAN", severity: "info" },
    ]);
    const read = (await owner.get(`/documents/${id}`)).body.data;
    expect(read.options).to.deep.equal({ supplier_name: [{ label: "ACME s.r.o.", value: "acme" }] });
    const table = read.annotations.find((annotation: Annotation) => annotation.key === "line_items");
    expect(table.rows).to.deep.equal([
      { activity: { value: "A" } },
      { activity: { value: "B" }, total_incl_tax: { value: "20,5", numericValue: 20.5 } },
    ]);
    expect(table.source).to.equal("validation");
  });

  it("answers INVALID_ARGUMENT naming the field for malformed JSON, an unknown source, key, column or row, and changes nothing", async () => {
    const id = await documentFixture(owner, queueId, { extracted: true });
    const before = await current(id);
    const bad = [
      change(id, { annotations_json: "{not json" }),
      change(id, { source: "webhook" }),
      change(id, { annotations_json: JSON.stringify([{ key: "colour", value: "red" }]) }),
      change(id, { annotations_json: JSON.stringify([{ key: "total_due", value: "lots" }]) }),
      change(id, { cells_json: JSON.stringify([{ key: "activity", row_index: 7, value: "x" }]) }),
      change(id, { cells_json: JSON.stringify([{ key: "iban", row_index: 0, value: "x" }]) }),
      change(id, { options_json: JSON.stringify({ colour: [] }) }),
      change(id, { messages_json: JSON.stringify([{ key: null, message: "x", severity: "fatal" }]) }),
      change(id, { status: "archived" }),
    ];
    for (const request of bad) await expectGrpcError(h.grpc.applyDocumentChanges(request), "INVALID_ARGUMENT");
    await h.grpc
      .applyDocumentChanges(change(id, { annotations_json: JSON.stringify([{ key: "colour", value: "red" }]) }))
      .catch((error: Error) => {
        expect(error.message).to.contain("annotations_json.0.key");
      });
    expect((await current(id)).version).to.equal(before.version);
    await expectGrpcError(h.grpc.applyDocumentChanges(change(randomUUID())), "NOT_FOUND");
  });

  it("an older service receiving a newer annotation property keeps working: ApplyDocumentChanges and RecordExtraction drop what they do not know", async () => {
    const id = await documentFixture(owner, queueId, { extracted: true });
    // A newer sender (automation, learning, the engine) deployed before this service: properties it does not know yet.
    const newer = [
      { key: "contract", value: "N-1", source: "automation", reviewedBy: "rule-7" },
      { key: "line_items", value: "", rows: [{ activity: { value: "A", confidenceBand: "high" } }] },
    ];
    const answer = await h.grpc.applyDocumentChanges(change(id, { source: "automation", annotations_json: JSON.stringify(newer) }));
    expect(answer).to.include({ applied: true, reason: "" });
    const stored = await annotationsOf(id);
    expect(stored.find((annotation) => annotation.key === "contract")).to.deep.equal({
      key: "contract",
      value: "N-1",
      source: "automation",
    });
    expect(stored.find((annotation) => annotation.key === "line_items")?.rows).to.deep.equal([{ activity: { value: "A" } }]);

    const fresh = await documentFixture(owner, queueId);
    const recorded = await h.grpc.recordExtraction({
      organization_id: (await current(fresh)).organization_id,
      document_id: fresh,
      idempotency_key: "newer-engine",
      extraction_json: JSON.stringify({
        annotations: [{ key: "invoice_id", value: "F-9", confidence: 90, readBy: "ocr-v9" }],
        confidence: 90,
      }),
      messages_json: "",
    });
    expect(recorded).to.include({ applied: true, reason: "" });
    expect((await annotationsOf(fresh)).find((annotation) => annotation.key === "invoice_id")).to.include({ value: "F-9" });

    // The public API stays strict: a client's misspelt property is still a 400.
    const refused = await owner.patch(`/documents/${id}/annotations`, { annotations: [{ key: "contract", value: "x", reviewedBy: "me" }] });
    expect(refused.status).to.equal(400);
  });

  it("refuses annotation changes to a frozen document (document_not_editable) but lets its status move on", async () => {
    const id = await documentFixture(owner, queueId, { extracted: true });
    await owner.post(`/documents/${id}/status`, { status: "ready_to_export" });
    await owner.post(`/documents/${id}/status`, { status: "exporting" });
    const late = await h.grpc.applyDocumentChanges(change(id, { annotations_json: JSON.stringify([{ key: "iban", value: "x" }]) }));
    expect(late).to.include({ applied: false, reason: "document_not_editable" });
    expect((await h.grpc.applyDocumentChanges(change(id, { source: "automation", status: "exported" }))).applied).to.equal(true);
  });

  it("shows why automation kept a document (automation_blockers) without a new version; a new document has none", async () => {
    const id = await documentFixture(owner, queueId, { extracted: true });
    const before = await current(id);
    const blockers = [
      { key: null, reason: "document confidence 93 is below 95" },
      { key: "iban", reason: "iban is required and empty" },
    ];
    const kept = await h.grpc.applyDocumentChanges(
      change(id, { source: "automation", automation_blockers_json: JSON.stringify(blockers), idempotency_key: "run-1:blockers" }),
    );
    expect(kept.applied).to.equal(true);
    expect(kept.document!.version).to.equal(before.version);
    const read = await owner.get(`/documents/${id}`);
    expect(read.body.data.automation_blockers).to.deep.equal(blockers);

    // With a status move they are written with the change; a malformed list changes nothing.
    await expectGrpcError(
      h.grpc.applyDocumentChanges(change(id, { source: "automation", automation_blockers_json: JSON.stringify([{ reason: "" }]) })),
      "INVALID_ARGUMENT",
    );
    expect((await owner.get(`/documents/${id}`)).body.data.automation_blockers).to.deep.equal(blockers);
    const moved = await h.grpc.applyDocumentChanges(
      change(id, { source: "automation", status: "ready_to_export", automation_blockers_json: "[]" }),
    );
    expect(moved.applied).to.equal(true);
    expect((await owner.get(`/documents/${id}`)).body.data)
      .to.include({ status: "ready_to_export" })
      .and.deep.include({ automation_blockers: [] });

    // Said of a document people already moved on, blockers are refused.
    const late = await h.grpc.applyDocumentChanges(
      change(id, { source: "automation", automation_blockers_json: JSON.stringify(blockers) }),
    );
    expect(late).to.include({ applied: false, reason: "document_not_editable" });

    const fresh = await documentFixture(owner, queueId, { extracted: true });
    expect((await owner.get(`/documents/${fresh}`)).body.data.automation_blockers).to.deep.equal([]);
  });

  it("runs the validator seam after a user's edit and answers with what validation changed", async () => {
    const id = await documentFixture(owner, queueId, { extracted: true });
    h.validator.answer = async () => ({
      source: "validation",
      annotations: [{ key: "supplier_name", value: "ACME s.r.o." }],
      cells: [],
      messages: [{ key: "total_due", message: "Total differs from the order", severity: "error" }],
      replaceMessages: true,
      options: {},
      approvers: [],
      appliedRules: [],
    });
    const reply = await owner.patch(`/documents/${id}/annotations`, { annotations: [{ key: "total_due", value: "10" }] });
    expect(reply.status).to.equal(200);
    expect(reply.body.data.messages).to.deep.equal([{ key: "total_due", message: "Total differs from the order", severity: "error" }]);
    expect(reply.body.data.annotations.find((annotation: Annotation) => annotation.key === "supplier_name")).to.deep.equal({
      key: "supplier_name",
      value: "ACME s.r.o.",
      source: "validation",
    });
    const call = h.validator.calls.at(-1)!;
    expect(call.userId).to.equal(owner.userId);
    expect(call.previousAnnotations.find((annotation) => annotation.key === "total_due")?.value).to.equal("1 234,50");
    expect(call.document.annotations.find((annotation) => annotation.key === "total_due")?.value).to.equal("10");
    expect((await owner.post(`/documents/${id}/status`, { status: "ready_to_export" })).status).to.equal(409);
  });

  it("does not let a validation answer overtake a newer edit made while it was on its way", async () => {
    const id = await documentFixture(owner, queueId, { extracted: true });
    const colleague = h.member((await owner.get(`/documents/${id}`)).body.data.organization_id, "editor");
    h.validator.answer = async (edit) => {
      if (edit.userId === owner.userId)
        await colleague.patch(`/documents/${id}/annotations`, { annotations: [{ key: "iban", value: "newer" }] });
      return {
        source: "validation",
        annotations: edit.userId === owner.userId ? [{ key: "iban", value: "stale" }] : [],
        cells: [],
        messages: [],
        replaceMessages: true,
        options: {},
        approvers: [],
        appliedRules: [],
      };
    };
    const reply = await owner.patch(`/documents/${id}/annotations`, { annotations: [{ key: "iban", value: "first" }] });
    expect(reply.status).to.equal(200);
    expect(reply.body.data.annotations.find((annotation: Annotation) => annotation.key === "iban").value).to.equal("newer");
    expect(await fieldValue(id, "iban")).to.equal("newer");
  });
});
