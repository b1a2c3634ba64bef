import { randomBytes, randomUUID } from "node:crypto";
import { eventually, type RecordedEvent } from "@docex/testkit";
import { expect } from "chai";
import { type OrganizationFixture, type Person, Stack } from "./support/stack.js";

interface AnnotationIn {
  key: string;
  value: string;
  values?: Array<{ value: string }>;
}

interface Queue {
  id: string;
  humanized_id: string;
}

/** A supplier no other test uses, with its tax id written two ways. */
function newSupplier() {
  const digits = String(10_000_000 + Math.floor(Math.random() * 89_999_999));
  return {
    taxId: `CZ${digits}`,
    taxIdSpaced: `cz ${digits.slice(0, 4)} ${digits.slice(4)}`,
    name: `Supplier ${randomBytes(3).toString("hex")} s.r.o.`,
  };
}

describe("learning with the real document and membership services in-process (auth's user directory stubbed)", function () {
  this.timeout(60_000);
  let stack: Stack;
  let organization: OrganizationFixture;
  let owner: Person;
  let queueA: Queue;
  let queueB: Queue;

  before(async () => {
    stack = await Stack.start();
    organization = await stack.organization("acme");
    owner = organization.owner;
    const workspace = await owner.document.post("/workspaces", { organization_id: organization.id, name: "Payables" });
    if (workspace.status !== 201) throw new Error(`workspace: ${workspace.status} ${JSON.stringify(workspace.body)}`);
    queueA = (await owner.document.post("/queues", { workspace_id: workspace.body.data.id, name: "Invoices" })).body.data;
    queueB = (await owner.document.post("/queues", { workspace_id: workspace.body.data.id, name: "Receipts" })).body.data;
  });
  after(async () => {
    await stack?.stop();
  });

  async function uploaded(queueId: string, annotations: AnnotationIn[] = []): Promise<string> {
    const reply = await owner.document.post(`/queues/${queueId}/documents`, { file_name: "invoice.pdf", annotations });
    if (reply.status !== 201) throw new Error(`upload: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body.data.id;
  }

  /** A document whose extraction result arrived (POST /documents/{id}/extraction): document.extracted is published. */
  async function extracted(queueId: string, annotations: AnnotationIn[], upload: AnnotationIn[] = []): Promise<string> {
    const id = await uploaded(queueId, upload);
    const reply = await owner.document.post(`/documents/${id}/extraction`, { annotations, confidence: 90 });
    if (reply.status !== 200) throw new Error(`extraction: ${reply.status} ${JSON.stringify(reply.body)}`);
    return id;
  }

  // biome-ignore lint/suspicious/noExplicitAny: documents are asserted field by field
  async function documentOf(id: string): Promise<any> {
    return (await owner.document.get(`/documents/${id}`)).body.data;
  }

  // biome-ignore lint/suspicious/noExplicitAny: documents are asserted field by field
  const annotationOf = (document: any, key: string) => document.annotations.find((annotation: { key: string }) => annotation.key === key);

  /** The document once learning has filled `key` in it. */
  const filled = (id: string, key: string) =>
    eventually(async () => {
      const document = await documentOf(id);
      return annotationOf(document, key)?.source === "learned" ? document : undefined;
    });

  const isExtractionOf =
    (documentId: string) =>
    ({ event }: RecordedEvent) =>
      event.type === "document.extracted" && event.data.document_id === documentId;

  /** Waits until learning has handled every document.extracted in the stream, the one of `documentId` included. */
  async function learningCaughtUp(documentId: string): Promise<void> {
    await stack.events.settle(isExtractionOf(documentId), 1, 10_000, 0);
    await eventually(async () => {
      const published = stack.events.ofType("document.extracted").length;
      return (await stack.handledExtractions()) >= published ? true : undefined;
    });
  }

  const learn = (documentId: string, body: unknown, person: Person = owner) => person.learning.post(`/documents/${documentId}/learn`, body);

  const relearnBody = (taxId: string | null, fieldKey: string, value: string | null) => ({
    tax_id: taxId,
    register_id: null,
    name: null,
    field_key: fieldKey,
    value,
  });

  it("fills the fields the AI left empty on the next document of a learned supplier (source learned) and keeps what the AI extracted", async () => {
    const supplier = newSupplier();
    const first = await extracted(queueA.id, [
      { key: "supplier_tax_id", value: supplier.taxId },
      { key: "invoice_id", value: "INV-1" },
    ]);
    const learned = await learn(first, {
      annotations: {
        supplier_tax_id: [{ value: supplier.taxId }],
        supplier_name: [{ value: supplier.name }],
        iban: [{ value: "CZ6508000000192000145399" }],
        bank_account: [{ value: "19-2000145399/0800" }, { value: "178124-4159/0710" }],
        contract: [{ value: "C-2024-7" }],
        total_due: [{ value: "1 234,50", numeric_value: 1234.5 }],
        due_date: [{ value: "31.3.2024", iso_date_value: "2024-03-31" }],
        line_items: [{ activity: [{ value: "Consulting" }], total_incl_tax: [{ value: "1234.50" }] }],
      },
      line_items_visibility: "hidden",
    });
    expect(learned.status).to.equal(204);

    // The AI reads the tax id written differently, finds an IBAN of its own, and leaves contract, name and accounts empty.
    const next = await extracted(queueA.id, [
      { key: "supplier_tax_id", value: supplier.taxIdSpaced },
      { key: "invoice_id", value: "INV-2" },
      { key: "iban", value: "CZ5508000000001234567899" },
      { key: "total_due", value: "99" },
      { key: "due_date", value: "2024-04-30" },
      { key: "contract", value: "" },
    ]);
    const document = await filled(next, "contract");
    expect(annotationOf(document, "contract")).to.include({ value: "C-2024-7", source: "learned" });
    expect(annotationOf(document, "supplier_name")).to.include({ value: supplier.name, source: "learned" });
    expect(annotationOf(document, "bank_account")).to.deep.include({
      value: "19-2000145399/0800",
      values: [{ value: "178124-4159/0710" }],
      source: "learned",
    });
    expect(annotationOf(document, "iban")).to.include({ value: "CZ5508000000001234567899", source: "ai" });
    expect(annotationOf(document, "total_due")).to.include({ value: "99", source: "ai" });
    expect(annotationOf(document, "due_date")).to.include({ value: "2024-04-30", source: "ai" });
    expect(annotationOf(document, "invoice_id")).to.include({ value: "INV-2", source: "ai" });
    expect(annotationOf(document, "line_items")).to.equal(undefined);
    expect(document.status).to.equal("to_validate");
  });

  it("learns from validation without a /learn call: a person's move out of to_validate teaches the supplier's values; the queue option turns it off", async () => {
    const supplier = newSupplier();
    const first = await extracted(queueA.id, [
      { key: "supplier_tax_id", value: supplier.taxId },
      { key: "invoice_id", value: "INV-V1" },
    ]);
    // The person corrects the document and confirms it.
    const corrected = await owner.document.patch(`/documents/${first}/annotations`, {
      annotations: [
        { key: "supplier_name", value: supplier.name },
        { key: "contract", value: "C-VALIDATED" },
      ],
    });
    expect(corrected.status).to.equal(200);
    expect((await owner.document.post(`/documents/${first}/status`, { status: "ready_to_export" })).status).to.equal(200);
    const feedback = await eventually(() =>
      stack.events.ofType("learning.feedback", (event) => event.data.document_id === first && event.actor_user_id !== null).at(0),
    );
    expect(feedback.data.payload.annotations).to.deep.include({ contract: [{ value: "C-VALIDATED" }] });

    const next = await extracted(queueA.id, [
      { key: "supplier_tax_id", value: supplier.taxIdSpaced },
      { key: "invoice_id", value: "INV-V2" },
    ]);
    const document = await filled(next, "contract");
    expect(annotationOf(document, "contract")).to.include({ value: "C-VALIDATED", source: "learned" });
    expect(annotationOf(document, "supplier_name")).to.include({ value: supplier.name, source: "learned" });
    // A value that differs per invoice is not filled from one confirmation of another value.
    expect(annotationOf(document, "invoice_id")).to.include({ value: "INV-V2", source: "ai" });

    // Off: a confirmed document teaches nothing.
    const off = await owner.document.patch(`/queues/${queueB.id}`, { learn_from_validation: false });
    expect(off.status).to.equal(200);
    expect(off.body.data.learn_from_validation).to.equal(false);
    const other = newSupplier();
    const unlearned = await extracted(queueB.id, [{ key: "supplier_tax_id", value: other.taxId }]);
    await owner.document.patch(`/documents/${unlearned}/annotations`, { annotations: [{ key: "contract", value: "C-NOT-LEARNED" }] });
    expect((await owner.document.post(`/documents/${unlearned}/status`, { status: "ready_to_export" })).status).to.equal(200);
    const later = await extracted(queueB.id, [{ key: "supplier_tax_id", value: other.taxId }]);
    await learningCaughtUp(later);
    expect(annotationOf(await documentOf(later), "contract")?.value ?? "").to.equal("");
    expect(stack.events.ofType("learning.feedback", (event) => event.data.document_id === unlearned)).to.deep.equal([]);
  });

  it("remembers the supplier per queue: values confirmed again, not those that differed on every document, and the visibility", async () => {
    const registerId = `${randomBytes(2).toString("hex")} 45 678`;
    const first = await uploaded(queueA.id);
    const second = await uploaded(queueA.id);
    const body = (invoiceId: string) => ({
      annotations: {
        supplier_register_id: [{ value: registerId }],
        contract: [{ value: "FRAME-1" }],
        invoice_id: [{ value: invoiceId }],
      },
      tax_detail_visibility: "visible",
    });
    expect((await learn(first, body("A-1"))).status).to.equal(204);
    expect((await learn(second, body("A-2"))).status).to.equal(204);

    const supplier = { tax_id: "", register_id: registerId.replaceAll(" ", ""), name: "" };
    const memory = await stack.memoryOf({ queue_id: queueA.id, supplier });
    expect(memory.fields).to.deep.equal([
      { key: "contract", value: "FRAME-1", pinned: false },
      { key: "supplier_register_id", value: registerId, pinned: false },
    ]);
    expect(memory.tax_detail_visibility).to.equal("visible");
    expect(memory.line_items_visibility).to.equal("");
    expect((await stack.memoryOf({ queue_id: queueB.id, supplier })).fields).to.deep.equal([]);
    const stranger = { tax_id: "", register_id: "", name: "Nobody We Know" };
    expect((await stack.memoryOf({ queue_id: queueA.id, supplier: stranger })).fields).to.deep.equal([]);
  });

  it("pins a value by relearn: it fills an empty field, replaces the AI's value and a learned one, but not a value people gave", async () => {
    const supplier = newSupplier();
    const first = await uploaded(queueA.id, [{ key: "supplier_tax_id", value: supplier.taxId }]);
    const learned = await learn(first, { annotations: { contract: [{ value: "C-OLD" }], supplier_name: [{ value: supplier.name }] } });
    expect(learned.status).to.equal(204);
    const pin = (fieldKey: string, value: string) =>
      owner.learning.post(`/queues/${queueA.humanized_id}/relearn`, relearnBody(supplier.taxId, fieldKey, value));
    expect((await pin("iban", "CZ6508000000192000145399")).status).to.equal(204);
    expect((await pin("contract", "C-NEW")).status).to.equal(204);

    const next = await extracted(queueA.id, [
      { key: "supplier_tax_id", value: supplier.taxId },
      { key: "iban", value: "CZ0000000000000000000000" },
    ]);
    const document = await filled(next, "iban");
    expect(annotationOf(document, "iban")).to.include({ value: "CZ6508000000192000145399", source: "learned" });
    expect(annotationOf(document, "contract")).to.include({ value: "C-NEW", source: "learned" });

    // A value given at upload, and one a user typed before the extraction arrived, stay.
    const givenByPeople = await uploaded(queueA.id, [{ key: "iban", value: "FROM-UPLOAD" }]);
    const typed = await owner.document.patch(`/documents/${givenByPeople}/annotations`, {
      annotations: [{ key: "contract", value: "MY-OWN" }],
    });
    expect(typed.status).to.equal(200);
    const extraction = await owner.document.post(`/documents/${givenByPeople}/extraction`, {
      annotations: [{ key: "supplier_tax_id", value: supplier.taxId }],
      confidence: 90,
    });
    expect(extraction.status).to.equal(200);
    const kept = await filled(givenByPeople, "supplier_name");
    expect(annotationOf(kept, "iban")).to.deep.equal({ key: "iban", value: "FROM-UPLOAD" });
    expect(annotationOf(kept, "contract")).to.include({ value: "MY-OWN", source: "user" });

    const memory = await stack.memoryOf({
      queue_id: queueA.id,
      supplier: { tax_id: supplier.taxId, register_id: "", name: "" },
    });
    expect(memory.fields).to.deep.equal([
      { key: "contract", value: "C-NEW", pinned: true },
      { key: "iban", value: "CZ6508000000192000145399", pinned: true },
      { key: "supplier_name", value: supplier.name, pinned: false },
    ]);
  });

  it("forgets a field on relearn with null: the next document of the supplier is not filled with it, learned or pinned", async () => {
    const supplier = newSupplier();
    const first = await uploaded(queueA.id, [{ key: "supplier_tax_id", value: supplier.taxId }]);
    const learned = await learn(first, {
      annotations: { supplier_name: [{ value: supplier.name }], contract: [{ value: "C-9" }] },
    });
    expect(learned.status).to.equal(204);
    const relearn = (fieldKey: string, value: string | null) =>
      owner.learning.post(`/documents/${first}/relearn`, relearnBody(supplier.taxId, fieldKey, value));
    expect((await relearn("iban", "CZ6508000000192000145399")).status).to.equal(204);
    expect((await relearn("iban", null)).status).to.equal(204);
    expect((await relearn("contract", null)).status).to.equal(204);

    const next = await extracted(queueA.id, [{ key: "supplier_tax_id", value: supplier.taxId }]);
    const document = await filled(next, "supplier_name");
    expect(annotationOf(document, "contract")).to.equal(undefined);
    expect(annotationOf(document, "iban")).to.equal(undefined);
  });

  it("scopes a document's relearn to that document's queue: the same supplier in another queue is not filled", async () => {
    const supplier = newSupplier();
    const inA = await uploaded(queueA.id);
    expect((await owner.learning.post(`/documents/${inA}/relearn`, relearnBody(supplier.taxId, "contract", "A-ONLY"))).status).to.equal(
      204,
    );
    // Queue B learns only the supplier's name, so that its next document shows when learning has been at it.
    const inB = await uploaded(queueB.id, [{ key: "supplier_tax_id", value: supplier.taxId }]);
    expect((await learn(inB, { annotations: { supplier_name: [{ value: supplier.name }] } })).status).to.equal(204);

    const nextInB = await filled(await extracted(queueB.id, [{ key: "supplier_tax_id", value: supplier.taxId }]), "supplier_name");
    expect(annotationOf(nextInB, "contract")).to.equal(undefined);
    const nextInA = await filled(await extracted(queueA.id, [{ key: "supplier_tax_id", value: supplier.taxId }]), "contract");
    expect(annotationOf(nextInA, "contract")).to.include({ value: "A-ONLY" });
    expect(annotationOf(nextInA, "supplier_name")).to.equal(undefined);
  });

  it("answers 400 naming every bad field of a learn, and stores and publishes nothing", async () => {
    const supplier = newSupplier();
    const documentId = await uploaded(queueA.id);
    const reply = await learn(documentId, {
      annotations: {
        supplier_tax_id: [{ value: supplier.taxId }],
        contract: [{ value: "C-1" }],
        nonsense: [{ value: "x" }],
        total_due: [{ value: "twelve" }],
        due_date: [{ value: "31.2.2024" }],
        iban: [{ value: "CZ1" }, { value: "CZ2" }],
        activity: [{ value: "Consulting" }],
        invoice_id: [{ value: "INV", numeric: 1 }],
        line_items: [{ colour: [{ value: "red" }], total_incl_tax: [{ value: "ten" }] }],
      },
    });
    expect(reply.status).to.equal(400);
    expect(reply.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(reply.body.code).to.equal("invalid_annotations");
    expect(reply.body.errors.map((error: { path: string }) => error.path)).to.have.members([
      "annotations.nonsense",
      "annotations.total_due.0.value",
      "annotations.due_date.0.value",
      "annotations.iban",
      "annotations.activity",
      "annotations.invoice_id.0",
      "annotations.line_items.0.colour",
      "annotations.line_items.0.total_incl_tax.0.value",
    ]);

    const shapes: Array<[unknown, string]> = [
      [{}, "annotations"],
      [{ annotations: [] }, "annotations"],
      [{ annotations: {}, line_items_visibility: "sometimes" }, "line_items_visibility"],
      [{ annotations: {}, extra: true }, ""],
    ];
    for (const [body, path] of shapes) {
      const refused = await learn(documentId, body);
      expect(refused.status, JSON.stringify(body)).to.equal(400);
      expect(refused.body.errors.map((error: { path: string }) => error.path)).to.include(path);
    }
    const malformed = await owner.learning.call("POST", `/documents/${documentId}/learn`, "{not json");
    expect(malformed.status).to.equal(400);
    expect(malformed.body.code).to.equal("malformed_json");

    const memory = await stack.memoryOf({
      queue_id: queueA.id,
      supplier: { tax_id: supplier.taxId, register_id: "", name: "" },
    });
    expect(memory.fields).to.deep.equal([]);
    // A good learn afterwards is the only feedback of this document.
    expect((await learn(documentId, { annotations: { contract: [{ value: "C-1" }] } })).status).to.equal(204);
    const published = await stack.events.settle(
      ({ event }) => event.type === "learning.feedback" && event.data.document_id === documentId,
      1,
    );
    expect(published).to.have.length(1);
  });

  it("answers 400 naming the field for a relearn that lacks a field, names no supplier, or does not fit the queue's schema", async () => {
    const documentId = await uploaded(queueA.id);
    const paths = {
      document: `/documents/${documentId}/relearn`,
      queue: `/queues/${queueA.id}/relearn`,
    };
    const cases: Array<[unknown, string[]]> = [
      [{ tax_id: "CZ1", register_id: null, name: null, field_key: "iban" }, ["value"]],
      [{ register_id: null, name: null, field_key: "iban", value: "x" }, ["tax_id"]],
      [relearnBody(null, "iban", "x"), ["tax_id", "register_id", "name"]],
      [{ ...relearnBody(null, "iban", "x"), name: "  " }, ["tax_id", "register_id", "name"]],
      [{ ...relearnBody("CZ1", "iban", "x"), colour: "red" }, [""]],
      [relearnBody("CZ1", "nonsense", "x"), ["field_key"]],
      [relearnBody("CZ1", "line_items", "x"), ["field_key"]],
      [relearnBody("CZ1", "activity", "x"), ["field_key"]],
      [relearnBody("CZ1", "total_due", "twelve"), ["value"]],
      [relearnBody("CZ1", "due_date", "2024-02-30"), ["value"]],
      [relearnBody("CZ1", "contract", ""), ["value"]],
    ];
    for (const path of Object.values(paths)) {
      for (const [body, expected] of cases) {
        const reply = await owner.learning.post(path, body);
        expect(reply.status, `${path} ${JSON.stringify(body)}`).to.equal(400);
        expect(reply.body.errors.map((error: { path: string }) => error.path)).to.have.members(expected);
      }
    }
    expect((await owner.learning.post(paths.queue, relearnBody("CZ1", "total_due", "1 234,50"))).status).to.equal(204);
  });

  it("answers 404 for another organization's document or queue, 403 to a viewer, 404 outside an editor's queues, 401 without a token", async () => {
    const documentId = await uploaded(queueA.id);
    const goodLearn = { annotations: { contract: [{ value: "C-1" }] } };
    const goodRelearn = relearnBody("CZ12345678", "contract", "C-1");

    const other = await stack.organization("other");
    expect((await learn(documentId, goodLearn, other.owner)).status).to.equal(404);
    expect((await other.owner.learning.post(`/documents/${documentId}/relearn`, goodRelearn)).status).to.equal(404);
    expect((await other.owner.learning.post(`/queues/${queueA.id}/relearn`, goodRelearn)).status).to.equal(404);
    const byHumanizedId = await other.owner.learning.post(`/queues/${queueA.humanized_id}/relearn`, goodRelearn);
    expect(byHumanizedId.status).to.equal(404);
    expect(byHumanizedId.body.code).to.equal("queue_not_found");
    expect((await learn(randomUUID(), goodLearn)).status).to.equal(404);
    expect((await learn("not-a-uuid", goodLearn)).status).to.equal(404);
    expect((await owner.learning.post("/queues/no-such-queue/relearn", goodRelearn)).status).to.equal(404);

    const viewer = await stack.invite(organization, `viewer-${randomBytes(3).toString("hex")}@example.test`, "viewer");
    const refused = await learn(documentId, goodLearn, viewer);
    expect(refused.status).to.equal(403);
    expect(refused.body.detail).to.contain("viewer");
    expect((await viewer.learning.post(`/documents/${documentId}/relearn`, goodRelearn)).status).to.equal(403);
    expect((await viewer.learning.post(`/queues/${queueA.id}/relearn`, goodRelearn)).status).to.equal(403);

    const editor = await stack.invite(organization, `editor-${randomBytes(3).toString("hex")}@example.test`, "editor", [queueB.id]);
    expect((await learn(documentId, goodLearn, editor)).status).to.equal(404);
    expect((await editor.learning.post(`/queues/${queueB.id}/relearn`, goodRelearn)).status).to.equal(204);
    expect((await learn(await uploaded(queueB.id), goodLearn, editor)).status).to.equal(204);

    const anonymous = await owner.learning.call("POST", `/documents/${documentId}/learn`, goodLearn, { token: null });
    expect(anonymous.status).to.equal(401);
    expect((await owner.learning.get(`/documents/${documentId}/learn`)).status).to.equal(405);
  });

  it("publishes every learn and relearn as learning.feedback through the outbox, naming the caller and the request", async () => {
    const supplier = newSupplier();
    const editor = await stack.invite(organization, `editor-${randomBytes(3).toString("hex")}@example.test`, "editor");
    const documentId = await uploaded(queueA.id, [{ key: "supplier_name", value: supplier.name }]);
    const annotations = { supplier_tax_id: [{ value: supplier.taxId }], contract: [{ value: "C-5" }] };
    const learnReply = await learn(documentId, { annotations, line_items_visibility: "visible" });
    expect(learnReply.status).to.equal(204);
    const pinReply = await owner.learning.post(`/documents/${documentId}/relearn`, relearnBody(supplier.taxId, "iban", "CZ1"));
    expect(pinReply.status).to.equal(204);
    const forgetReply = await editor.learning.post(`/queues/${queueA.id}/relearn`, relearnBody(supplier.taxId, "iban", null));
    expect(forgetReply.status).to.equal(204);

    const events = await stack.events.settle(
      ({ event }) => event.type === "learning.feedback" && event.data.supplier.tax_id === supplier.taxId,
      3,
    );
    const [learned, pinned, forgotten] = events.map(({ event }) => event);
    expect(learned!.organization_id).to.equal(organization.id);
    expect([learned, pinned, forgotten].map((event) => [event!.actor_user_id, event!.request_id])).to.deep.equal([
      [owner.userId, learnReply.headers.get("x-request-id")],
      [owner.userId, pinReply.headers.get("x-request-id")],
      [editor.userId, forgetReply.headers.get("x-request-id")],
    ]);
    expect(learned!.data).to.deep.equal({
      queue_id: queueA.id,
      document_id: documentId,
      // The name is the document's: the set did not name it.
      supplier: { tax_id: supplier.taxId, register_id: null, name: supplier.name },
      kind: "learn",
      payload: { annotations, line_items_visibility: "visible", tax_detail_visibility: null },
    });
    expect(pinned!.data).to.deep.include({ kind: "relearn", document_id: documentId, payload: { field_key: "iban", value: "CZ1" } });
    expect(forgotten!.data).to.deep.include({ kind: "relearn", document_id: null, payload: { field_key: "iban", value: null } });
    expect(forgotten!.data.supplier).to.deep.equal({ tax_id: supplier.taxId, register_id: null, name: null });
  });

  it("fills nothing twice when document.extracted is delivered again, even after the user cleared the learned value", async () => {
    const supplier = newSupplier();
    const first = await uploaded(queueA.id, [{ key: "supplier_tax_id", value: supplier.taxId }]);
    expect((await learn(first, { annotations: { contract: [{ value: "C-R" }] } })).status).to.equal(204);
    const next = await extracted(queueA.id, [{ key: "supplier_tax_id", value: supplier.taxId }]);
    await filled(next, "contract");
    const cleared = await owner.document.patch(`/documents/${next}/annotations`, { annotations: [{ key: "contract", value: "" }] });
    expect(cleared.status).to.equal(200);
    const before = await documentOf(next);

    const [original] = stack.events.matching(isExtractionOf(next));
    await stack.events.redeliver(original!.event);
    await stack.events.settle(isExtractionOf(next), 2, 10_000, 0);
    await learningCaughtUp(next);

    const after = await documentOf(next);
    expect(after.updated_at).to.equal(before.updated_at);
    expect(after.annotations).to.deep.equal(before.annotations);
    expect(annotationOf(after, "contract")).to.include({ value: "", source: "user" });
  });

  it("handles each document.extracted once: delivered again after the supplier was learned, it still fills nothing", async () => {
    const supplier = newSupplier();
    const documentId = await extracted(queueA.id, [{ key: "supplier_tax_id", value: supplier.taxId }]);
    await learningCaughtUp(documentId);
    const other = await uploaded(queueA.id, [{ key: "supplier_tax_id", value: supplier.taxId }]);
    expect((await learn(other, { annotations: { contract: [{ value: "C-LATE" }] } })).status).to.equal(204);
    const before = await documentOf(documentId);

    const [original] = stack.events.matching(isExtractionOf(documentId));
    await stack.events.redeliver(original!.event);
    await stack.events.settle(isExtractionOf(documentId), 2, 10_000, 0);
    await learningCaughtUp(documentId);

    const after = await documentOf(documentId);
    expect(after.updated_at).to.equal(before.updated_at);
    expect(annotationOf(after, "contract")).to.equal(undefined);
  });

  it("when the user edited first (version conflict), fills only what is still empty and keeps the user's value", async () => {
    const supplier = newSupplier();
    const documentId = await extracted(queueA.id, [{ key: "supplier_tax_id", value: supplier.taxId }]);
    // Nothing is known of the supplier yet, so the extraction fills nothing.
    await learningCaughtUp(documentId);
    const [extraction] = stack.events.matching(isExtractionOf(documentId));
    const edited = await owner.document.patch(`/documents/${documentId}/annotations`, {
      annotations: [{ key: "contract", value: "USER-C" }],
    });
    expect(edited.status).to.equal(200);

    const other = await uploaded(queueA.id, [{ key: "supplier_tax_id", value: supplier.taxId }]);
    expect(
      (await learn(other, { annotations: { contract: [{ value: "LEARNED-C" }], iban: [{ value: "CZ6508000000192000145399" }] } })).status,
    ).to.equal(204);
    // The extraction event arrives (again, as a new event) only now, naming the version before the user's edit.
    await stack.events.publish({ ...extraction!.event, id: randomUUID(), occurred_at: new Date().toISOString() });

    const document = await filled(documentId, "iban");
    expect(annotationOf(document, "iban")).to.include({ value: "CZ6508000000192000145399", source: "learned" });
    expect(annotationOf(document, "contract")).to.include({ value: "USER-C", source: "user" });
  });
});
