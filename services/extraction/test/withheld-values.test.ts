import { placedPdf } from "@docex/testkit/multilingual-invoices";
import { expect } from "chai";
import { messagesFor } from "../src/engine/annotations.js";
import { MIN_CONFIDENCE, withholdUnsure } from "../src/engine/confidence.js";
import { extractInvoice } from "../src/engine/engine.js";
import { DEFAULT_LIMITS, type ExtractedField, type ExtractionResult } from "../src/engine/types.js";

/** A wrong value is worse than an empty one: a value read with too little confidence is left empty and named. */
describe("extraction engine: values it is unsure of stay empty", () => {
  const field = (value: string, confidence: number, source: ExtractedField["source"]): ExtractedField => ({ value, confidence, source });

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
