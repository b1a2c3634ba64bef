import type { SchemaField } from "@docex/annotations";
import {
  badInvoiceFiles,
  buildInvoiceCorpus,
  type CorpusDocument,
  EINVOICE_FORMATS,
  invoicePdf,
  makeInvoice,
} from "@docex/testkit/invoice-corpus";
import { expect } from "chai";
import { annotationsFor } from "../src/engine/annotations.js";
import { extractInvoice, sniffKind } from "../src/engine/engine.js";
import { ocrAvailable } from "../src/engine/ocr.js";
import { ExtractionPool } from "../src/engine/pool.js";
import { DEFAULT_LIMITS, type ExtractionResult } from "../src/engine/types.js";
import {
  normalizeCzechAccount,
  normalizeDate,
  normalizeIban,
  normalizeIco,
  normalizeVatId,
  parseAmount,
} from "../src/engine/validators.js";

function mismatches(document: CorpusDocument, result: ExtractionResult): string[] {
  const wrong: string[] = [];
  for (const [key, value] of Object.entries(document.expected.fields)) {
    const got = result.fields[key as keyof ExtractionResult["fields"]]?.value;
    if (got !== value) wrong.push(`${key}: ${JSON.stringify(got)} instead of ${JSON.stringify(value)}`);
  }
  const rows = JSON.stringify(result.lineItems?.rows ?? []);
  if (rows !== JSON.stringify(document.expected.rows))
    wrong.push(`line items ${rows} instead of ${JSON.stringify(document.expected.rows)}`);
  return wrong;
}

describe("extraction engine: validators", () => {
  it("checks IBANs by mod-97, Czech accounts and IČO by their check digits, VAT ids by format", () => {
    expect(normalizeIban("CZ65 0800 0000 1920 0014 5399")).to.equal("CZ6508000000192000145399");
    expect(normalizeIban("CZ66 0800 0000 1920 0014 5399")).to.equal(undefined);
    expect(normalizeIban("DE89 3704 0044 0532 0130 00")).to.equal("DE89370400440532013000");
    expect(normalizeCzechAccount("19-2000145399/0800")).to.equal("19-2000145399/0800");
    expect(normalizeCzechAccount("19-2000145398/0800")).to.equal(undefined);
    expect(normalizeIco("25596641")).to.equal("25596641");
    expect(normalizeIco("25596642")).to.equal(undefined);
    expect(normalizeVatId("CZ 25596641")).to.equal("CZ25596641");
    expect(normalizeVatId("DE12345678")).to.equal(undefined);
  });

  it("reads real dates only, and amounts with a decimal comma or point", () => {
    expect(normalizeDate("5. 1. 2025")).to.equal("2025-01-05");
    expect(normalizeDate("31.02.2025")).to.equal(undefined);
    expect(normalizeDate("5 January 2025")).to.equal("2025-01-05");
    expect(normalizeDate("20250105")).to.equal("2025-01-05");
    expect(parseAmount("12 345,50 Kč")).to.equal(12345.5);
    expect(parseAmount("12.345,50 €")).to.equal(12345.5);
    expect(parseAmount("12,345.50 EUR")).to.equal(12345.5);
    expect(parseAmount("12,34,5")).to.equal(undefined);
  });

  it("sniffs the kind of a file from its bytes, not its name", () => {
    expect(sniffKind(new TextEncoder().encode("%PDF-1.7\n"))).to.equal("pdf");
    expect(sniffKind(new Uint8Array([0x50, 0x4b, 0x03, 0x04]))).to.equal("zip");
    expect(sniffKind(new TextEncoder().encode("\uFEFF<?xml version='1.0'?><a/>"))).to.equal("xml");
    expect(sniffKind(new TextEncoder().encode("hello"))).to.equal("unknown");
  });
});

describe("extraction engine: the corpus", function () {
  this.timeout(180_000);
  let corpus: CorpusDocument[];

  before(async () => {
    corpus = await buildInvoiceCorpus({ einvoices: 2, textPdfs: 9 });
  });

  for (const format of EINVOICE_FORMATS) {
    it(`reads ${format} e-invoices exactly: every mapped field and every line item, confidence 100`, async () => {
      const documents = corpus.filter((document) => document.format === format);
      expect(documents).to.have.length(2);
      for (const document of documents) {
        const result = await extractInvoice({ bytes: document.bytes });
        expect(result.format, document.name).to.equal(format);
        expect(mismatches(document, result), document.name).to.deep.equal([]);
        for (const field of Object.values(result.fields)) {
          expect(field.confidence).to.equal(100);
          expect(field.source).to.equal("builtin:einvoice");
        }
        expect(result.lineItems?.source).to.equal("builtin:einvoice");
      }
    });
  }

  it("reads text-layer PDFs in three layouts and Czech, English and German: every field and line item", async () => {
    const documents = corpus.filter((document) => document.format === "pdf_text");
    expect(documents).to.have.length(9);
    for (const document of documents) {
      const result = await extractInvoice({ bytes: document.bytes });
      expect(result.format, document.name).to.equal("pdf_text");
      expect(mismatches(document, result), document.name).to.deep.equal([]);
      for (const field of Object.values(result.fields)) {
        expect(field.source).to.equal("builtin:pdf_text");
        expect(field.confidence).to.be.within(1, 99);
      }
      // The total agrees with the line items and with base + tax: the model trusts such a total.
      const due = result.fields.total_due;
      expect(due?.evidence, document.name).to.deep.include({ consistent: true, tableAgrees: true });
      expect(due?.confidence, document.name).to.be.at.least(90);
    }
  });

  it("refuses a value that fails its check even when its label is right (a wrong IBAN digit)", async () => {
    const truth = makeInvoice(42, "en");
    const broken = {
      ...truth,
      supplier: { ...truth.supplier, iban: `${truth.supplier.iban.slice(0, -1)}${(Number(truth.supplier.iban.slice(-1)) + 1) % 10}` },
    };
    const result = await extractInvoice({ bytes: await (await invoicePdf(broken, "en", "columns")).save() });
    expect(result.fields.iban).to.equal(undefined);
    expect(result.fields.invoice_id?.value).to.equal(truth.invoiceId);
  });

  it("reads scans by OCR when tesseract is installed, and says so when it is not", async function () {
    const noOcr = await extractInvoice(
      { bytes: corpus.find((document) => document.format === "pdf_text")?.bytes as Uint8Array },
      DEFAULT_LIMITS,
    );
    expect(noOcr.format).to.equal("pdf_text");
    const scans = await buildInvoiceCorpus({ einvoices: 0, textPdfs: 0, scans: 4, offset: 500 });
    if (scans.length === 0) this.skip();
    const without = await extractInvoice({ bytes: (scans[0] as CorpusDocument).bytes }, { ...DEFAULT_LIMITS, ocr: false });
    expect(without.messages).to.deep.equal([
      {
        key: null,
        severity: "info",
        message: "No text could be read from this document (it has no text layer and OCR is not installed); fill the fields by hand.",
      },
    ]);
    if (!(await ocrAvailable())) this.skip();
    let exact = 0;
    let total = 0;
    for (const document of scans) {
      const result = await extractInvoice({ bytes: document.bytes });
      expect(result.format, document.name).to.equal("ocr");
      for (const key of ["invoice_id", "total_due", "due_date", "iban", "supplier_tax_id"]) {
        total += 1;
        if (result.fields[key as keyof ExtractionResult["fields"]]?.value === document.expected.fields[key]) exact += 1;
        else console.log(`      ${document.name} ${key}: ${result.fields[key as keyof ExtractionResult["fields"]]?.value}`);
      }
      expect(result.fields.invoice_id?.source ?? "builtin:ocr").to.equal("builtin:ocr");
    }
    expect(exact / total).to.be.at.least(0.85);
  });
});

describe("extraction engine: mapping onto a queue's schema", () => {
  const schema: SchemaField[] = [
    { key: "invoice_id", type: "string" },
    { key: "bank_account", type: "string", multi_value: true },
    { key: "total_due", type: "number" },
    {
      key: "line_items",
      type: "table",
      columns: [
        { key: "activity", type: "string" },
        { key: "total_incl_tax", type: "number" },
      ],
    },
  ];

  it("writes only the schema's keys, multi-value fields as values, table rows with the schema's columns", async () => {
    const [document] = await buildInvoiceCorpus({ einvoices: 1, textPdfs: 0 });
    const { annotations, confidence } = annotationsFor(await extractInvoice({ bytes: (document as CorpusDocument).bytes }), schema);
    expect(annotations.map((annotation) => annotation.key)).to.deep.equal(["invoice_id", "total_due", "bank_account", "line_items"]);
    const account = annotations.find((annotation) => annotation.key === "bank_account");
    expect(account?.values).to.deep.equal([{ value: account?.value }]);
    const table = annotations.find((annotation) => annotation.key === "line_items");
    expect(Object.keys(table?.rows?.[0] ?? {})).to.deep.equal(["activity", "total_incl_tax"]);
    expect(table?.source).to.equal("builtin:einvoice");
    expect(confidence).to.equal(100);
  });

  it("passes each value's position on, kept within the page, and leaves out one no page could have", () => {
    const read = (position: { page: number; box: [number, number, number, number] }) =>
      annotationsFor(
        {
          format: "pdf_text",
          fields: { invoice_id: { value: "2026-17", confidence: 90, source: "builtin:pdf_text", position } },
          messages: [],
        },
        schema,
      ).annotations[0];
    expect(read({ page: 1, box: [0.1, 0.2, 0.3, 0.25] })?.position).to.deep.equal({ page: 1, box: [0.1, 0.2, 0.3, 0.25] });
    expect(read({ page: 2, box: [0.123456, -0.01, 1.02, 0.5] })?.position).to.deep.equal({ page: 2, box: [0.1235, 0, 1, 0.5] });
    expect(read({ page: 1, box: [0.5, 0.2, 0.4, 0.3] })).to.not.have.property("position");
    expect(read({ page: 0, box: [0.1, 0.2, 0.3, 0.3] })).to.not.have.property("position");
    expect(read({ page: 1, box: [Number.NaN, 0.2, 0.3, 0.3] })).to.not.have.property("position");
  });

  it("answers no annotations and a null confidence when nothing was found", () => {
    expect(annotationsFor({ format: "unreadable", fields: {}, messages: [] }, schema)).to.deep.equal({
      annotations: [],
      confidence: null,
      clamped: [],
    });
  });
});

describe("extraction engine: bad files, in the worker pool", function () {
  this.timeout(240_000);
  let pool: ExtractionPool;

  before(() => {
    pool = new ExtractionPool({ size: 1, timeoutMs: 12_000, maxMemoryMb: 192, limits: { maxPages: 5 } });
  });
  after(async () => {
    await pool.close();
  });

  it("ends each bad file with a clear message within the bounds, and keeps serving", async () => {
    for (const bad of await badInvoiceFiles()) {
      const started = Date.now();
      const result = await pool.extract({ bytes: bad.bytes, fileName: bad.name });
      const took = Date.now() - started;
      expect(result.messages.map((message) => message.message).join(" "), bad.name).to.match(bad.message);
      expect(took, bad.name).to.be.below(15_000);
      if (bad.name === "xxe.isdoc") expect(JSON.stringify(result)).not.to.contain("root:");
    }
    const [good] = await buildInvoiceCorpus({ einvoices: 1, textPdfs: 0 });
    const result = await pool.extract({ bytes: (good as CorpusDocument).bytes });
    expect(mismatches(good as CorpusDocument, result)).to.deep.equal([]);
  });

  it("stops an extraction that overruns its time and replaces the worker", async () => {
    const slow = new ExtractionPool({ size: 1, timeoutMs: 1, maxMemoryMb: 192 });
    try {
      const [document] = await buildInvoiceCorpus({ einvoices: 0, textPdfs: 1 });
      const result = await slow.extract({ bytes: (document as CorpusDocument).bytes });
      expect(result.format).to.equal("unreadable");
      expect(result.messages[0]?.message).to.match(/took longer than/);
    } finally {
      await slow.close();
    }
  });
});
