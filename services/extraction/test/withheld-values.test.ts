import { randomUUID } from "node:crypto";
import { DEFAULT_ANNOTATION_SCHEMA } from "@docex/annotations";
import { createLogger } from "@docex/kit/logger";
import { placedPdf } from "@docex/testkit/multilingual-invoices";
import { expect } from "chai";
import { type DocumentCreated, DocumentReader } from "../src/domain/document-reader.js";
import { LAYOUT_SOURCE } from "../src/domain/layout-memory.js";
import { ReadScheduler } from "../src/domain/read-scheduler.js";
import { messagesFor } from "../src/engine/annotations.js";
import { isWithheldMessage, MIN_CONFIDENCE, withholdUnsure } from "../src/engine/confidence.js";
import { extractInvoice } from "../src/engine/engine.js";
import { DEFAULT_LIMITS, type ExtractedField, type ExtractionResult } from "../src/engine/types.js";
import type { RunStore } from "../src/store/run-store.js";

/** A wrong value is worse than an empty one: a value read with too little confidence is left empty and named. */
const field = (value: string, confidence: number, source: ExtractedField["source"]): ExtractedField => ({ value, confidence, source });

describe("extraction engine: values it is unsure of stay empty", () => {
  it("leaves out page-read values below the threshold, names each in an info message with what was read, keeps exact ones", () => {
    const read: ExtractionResult = {
      format: "pdf_text",
      fields: {
        invoice_id: field("INV-77", 97, "builtin:pdf_text"),
        issue_date: field("2024-04-03", 40, "builtin:pdf_text"),
        supplier_name: field("Nummer:", 12, "builtin:ocr"),
        iban: field("CZ6508000000192000145399", 30, "builtin:qr"),
      },
      lineItems: { rows: [{ activity: "Work", total_incl_tax: "10.00" }], confidence: 20, source: "builtin:pdf_text" },
      messages: [{ key: null, message: "earlier", severity: "warning" }],
    };
    const kept = withholdUnsure(read, 60);
    expect(Object.keys(kept.fields).sort()).to.deep.equal(["iban", "invoice_id"]);
    expect(kept.lineItems?.rows).to.have.length(1);
    expect(kept.messages).to.deep.equal([
      { key: null, message: "earlier", severity: "warning" },
      {
        key: "issue_date",
        message: 'Read as "2024-04-03" with a confidence of 40 %, too little to fill it in; check it on the page.',
        severity: "info",
      },
      {
        key: "supplier_name",
        message: 'Read as "Nummer:" with a confidence of 12 %, too little to fill it in; check it on the page.',
        severity: "info",
      },
    ]);
    // The result read is not changed, and a threshold of 0 gives everything.
    expect(Object.keys(read.fields)).to.have.length(4);
    expect(withholdUnsure(read, 0)).to.equal(read);
  });

  it("reads a PDF whose only date could be either way round: the date stays empty by default and is given with threshold 0", async () => {
    expect(MIN_CONFIDENCE).to.be.above(50);
    const bytes = await placedPdf([
      ["Invoice", 70, 60, 18],
      ["Invoice number", 70, 100],
      ["INV-77", 200, 100],
      ["Invoice date", 70, 118],
      ["03/04/2024", 200, 118],
    ]);
    const byDefault = await extractInvoice({ bytes, fileName: "ambiguous.pdf" });
    expect(byDefault.fields.invoice_id?.value).to.equal("INV-77");
    expect(byDefault.fields.issue_date).to.equal(undefined);
    const named = byDefault.messages.find((message) => message.key === "issue_date");
    expect(named?.severity).to.equal("info");
    expect(named?.message).to.match(/^Read as "2024-04-03" with a confidence of \d+ %/);
    const everything = await extractInvoice({ bytes, fileName: "ambiguous.pdf" }, { ...DEFAULT_LIMITS, minConfidence: 0 });
    expect(everything.fields.issue_date?.value).to.equal("2024-04-03");
    expect(everything.messages.some((message) => message.key === "issue_date")).to.equal(false);
  });

  it("puts a message about an engine field on the schema key its value would be written to, else on the document", () => {
    const schema = [
      { key: "date_issue", type: "date" },
      { key: "iban", type: "string" },
    ] as Parameters<typeof messagesFor>[1];
    const said = messagesFor(
      [
        { key: "issue_date", message: "a", severity: "info" },
        { key: "iban", message: "b", severity: "warning" },
        { key: "due_date", message: "c", severity: "info" },
        { key: null, message: "d", severity: "info" },
      ],
      schema,
    );
    expect(said.map((message) => message.key)).to.deep.equal(["date_issue", "iban", null, null]);
  });
});

describe("extraction: a value left empty that the supplier's layout reads", () => {
  it("goes to the document with the layout's value and without the message that it was left empty", async () => {
    const recorded: { extractionJson: string; messagesJson: string }[] = [];
    const withheld = withholdUnsure(
      {
        format: "pdf_text",
        fields: { invoice_id: field("INV-77", 97, "builtin:pdf_text"), due_date: field("2026-04-03", 40, "builtin:pdf_text") },
        messages: [],
        pages: [{ page: 1, width: 595, height: 842, words: [{ text: "INV-77", box: [0.1, 0.1, 0.2, 0.12] }] }],
      },
      MIN_CONFIDENCE,
    );
    expect(withheld.messages.filter(isWithheldMessage).map((message) => message.key)).to.deep.equal(["due_date"]);
    const reader = new DocumentReader({
      documents: {
        findQueue: async (id) => ({ id, extractionEngine: "builtin", schema: [...DEFAULT_ANNOTATION_SCHEMA], learnFromValidation: true }),
        findDocument: async () => undefined,
        readFile: async () => ({ bytes: new TextEncoder().encode("%PDF-1.7 test"), contentType: "application/pdf", fileName: "a.pdf" }),
        recordExtraction: async (record) => {
          recorded.push(record);
          return { applied: true, reason: "" };
        },
      },
      pool: { extract: async () => withheld },
      scheduler: new ReadScheduler({ readers: 2, ocrReaders: 1 }),
      runs: {
        handled: async () => false,
        record: async () => undefined,
        startRead: async () => 1,
        endRead: async () => undefined,
      } as unknown as RunStore,
      layouts: {
        // The supplier's layout reads the due date where people confirmed it before.
        apply: async (_queue, _schema, annotations) => [...annotations, { key: "due_date", value: "2026-03-04", source: LAYOUT_SOURCE }],
      },
      logger: createLogger("withheld-test", "silent"),
      maxFileBytes: 1_000_000,
      maxReads: 3,
    });
    const organizationId = randomUUID();
    await reader.onCreated({
      id: randomUUID(),
      type: "document.created",
      organization_id: organizationId,
      data: { document_id: randomUUID(), queue_id: randomUUID(), organization_id: organizationId, has_file: true },
    } as unknown as DocumentCreated);
    expect(recorded).to.have.length(1);
    const { annotations } = JSON.parse(recorded[0]?.extractionJson ?? "{}") as { annotations: { key: string; value: string }[] };
    expect(annotations.find((annotation) => annotation.key === "due_date")?.value).to.equal("2026-03-04");
    const messages = JSON.parse(recorded[0]?.messagesJson ?? "[]") as { key: string | null }[];
    expect(messages.map((message) => message.key)).to.not.include("due_date");
  });
});
