import { randomUUID } from "node:crypto";
import { createEvent, eventSubject } from "@docex/events";
import { EventBus } from "@docex/kit/bus";
import { createLogger } from "@docex/kit/logger";
import { dropDatabase, eventually, probeRunningService, testEventNamespace, testNatsUrl, testServiceConfig } from "@docex/testkit";
import { type BadFile, badInvoiceFiles, buildInvoiceCorpus, type CorpusDocument } from "@docex/testkit/invoice-corpus";
import { expect } from "chai";
import type { ExtractionRecord, QueueView } from "../src/domain/document-port.js";
import { annotationsFor } from "../src/engine/annotations.js";
import { configSchema, startExtractionService } from "../src/service.js";
import { DocumentDouble } from "./support/document-double.js";
import { invoiceWithCodes, OTHER_IBAN, paymentOf, spayd } from "./support/payment-codes.js";

const SCHEMA: QueueView["schema"] = [
  { key: "invoice_id", type: "string" },
  { key: "supplier_tax_id", type: "string" },
  { key: "iban", type: "string" },
  { key: "bank_account", type: "string", multi_value: true },
  { key: "total_due", type: "number" },
  { key: "due_date", type: "date" },
  {
    key: "line_items",
    type: "table",
    columns: [
      { key: "activity", type: "string" },
      { key: "total_incl_tax", type: "number" },
    ],
  },
];

describe("extraction service (real Postgres and NATS)", function () {
  this.timeout(120_000);
  const documents = new DocumentDouble();
  let config: ReturnType<typeof configSchema.parse>;
  let running: Awaited<ReturnType<typeof startExtractionService>>;
  let bus: EventBus;
  let corpus: CorpusDocument[];
  const organizationId = randomUUID();
  const workspaceId = randomUUID();
  const builtinQueue = randomUUID();
  const externalQueue = randomUUID();

  before(async () => {
    corpus = await buildInvoiceCorpus({ einvoices: 1, textPdfs: 1, offset: 900 });
    documents.queues.set(builtinQueue, { id: builtinQueue, extractionEngine: "builtin", schema: SCHEMA, learnFromValidation: true });
    documents.queues.set(externalQueue, { id: externalQueue, extractionEngine: "external", schema: SCHEMA, learnFromValidation: true });
    config = testServiceConfig(
      "extraction",
      { EXTRACTION_TIMEOUT_MS: 30_000, EXTRACTION_MAX_MEMORY_MB: 192, EXTRACTION_WORKERS: 1 },
      configSchema,
    );
    running = await startExtractionService(config, { documents });
    bus = await EventBus.connect({
      url: testNatsUrl(),
      name: "extraction-test",
      logger: createLogger("test", "silent"),
      namespace: testEventNamespace(),
    });
  });

  after(async () => {
    await bus?.close();
    await running?.stop();
    if (config) await dropDatabase(config.DATABASE_NAME);
  });

  async function upload(document: CorpusDocument | undefined, queueId: string, options: { hasFile?: boolean } = {}) {
    const documentId = randomUUID();
    if (document) documents.files.set(documentId, { bytes: document.bytes, contentType: document.contentType, fileName: document.name });
    const event = createEvent("document.created", {
      organization_id: organizationId,
      data: {
        document_id: documentId,
        queue_id: queueId,
        workspace_id: workspaceId,
        organization_id: organizationId,
        file_name: document?.name ?? null,
        file_sha256: null,
      },
    });
    const payload = { ...event, data: { ...event.data, has_file: options.hasFile ?? document !== undefined } };
    await bus.publish(eventSubject("document.created"), payload, { msgId: event.id });
    return { documentId, event: payload };
  }

  it("starts, reports ready over HTTP and gRPC health, and answers 404 on a path it does not serve", async () => {
    const probe = await probeRunningService(running);
    expect(probe.ready).to.equal(true);
    expect(probe.grpcHealth).to.equal("SERVING");
    expect(probe.unknownRoute.status).to.equal(404);
  });

  it("reads an uploaded e-invoice and records it once under the event id, with the queue's keys only and their source", async () => {
    const isdoc = corpus.find((document) => document.format === "isdoc") as CorpusDocument;
    const { documentId, event } = await upload(isdoc, builtinQueue);
    const record = await eventually(() => documents.records.find((candidate) => candidate.documentId === documentId));
    expect(record.idempotencyKey).to.equal(event.id);
    expect(record.organizationId).to.equal(organizationId);
    const extraction = JSON.parse(record.extractionJson);
    const byKey = Object.fromEntries(extraction.annotations.map((annotation: { key: string }) => [annotation.key, annotation]));
    expect(Object.keys(byKey).sort()).to.deep.equal(SCHEMA.map((field) => field.key).sort());
    expect(byKey.invoice_id).to.include({ value: isdoc.expected.fields.invoice_id, confidence: 100, source: "builtin:einvoice" });
    expect(byKey.total_due.value).to.equal(isdoc.expected.fields.total_due);
    expect(byKey.bank_account.values).to.deep.equal([{ value: isdoc.expected.fields.bank_account }]);
    expect(byKey.line_items.rows).to.deep.equal(
      isdoc.expected.rows.map((row) => ({ activity: { value: row.activity }, total_incl_tax: { value: row.total_incl_tax } })),
    );
    expect(extraction.confidence).to.equal(100);
    expect(JSON.parse(record.messagesJson)).to.deep.equal([]);
    const runs = await eventually(async () => {
      const found = await running.runs.forDocument(documentId);
      return found.length ? found : undefined;
    });
    expect(runs.map((run) => [run.format, run.outcome])).to.deep.equal([["isdoc", "applied"]]);
  });

  it("leaves documents of an external-engine queue and documents without a file to others", async () => {
    const pdf = corpus.find((document) => document.format === "pdf_text") as CorpusDocument;
    const external = await upload(pdf, externalQueue);
    const noFile = await upload(undefined, builtinQueue, { hasFile: false });
    const marker = await upload(pdf, builtinQueue);
    await eventually(() => documents.records.find((record) => record.documentId === marker.documentId));
    const runs = await eventually(async () => {
      const found = await running.runs.forDocument(external.documentId);
      return found.length ? found : undefined;
    });
    expect(runs[0]?.outcome).to.equal("skipped_external");
    expect(
      documents.records.filter((record) => ([external.documentId, noFile.documentId] as string[]).includes(record.documentId)),
    ).to.deep.equal([]);
    const record = documents.records.find((candidate) => candidate.documentId === marker.documentId) as ExtractionRecord;
    const annotations = JSON.parse(record.extractionJson).annotations as { key: string; source: string; value: string }[];
    expect(annotations.find((annotation) => annotation.key === "invoice_id")).to.include({
      value: pdf.expected.fields.invoice_id,
      source: "builtin:pdf_text",
    });
  });

  it("retries when document cannot take the result, and records it once (a redelivered event is not read again)", async () => {
    const cii = corpus.find((document) => document.format === "cii") as CorpusDocument;
    documents.failNextRecord = 1;
    const { documentId, event } = await upload(cii, builtinQueue);
    await eventually(() => documents.records.find((record) => record.documentId === documentId), 30_000);
    // The same event again (as after a crash between the record and the ack): nothing more reaches document.
    await bus.publish(eventSubject("document.created"), event, { msgId: randomUUID() });
    const marker = await upload(cii, builtinQueue);
    await eventually(() => documents.records.find((record) => record.documentId === marker.documentId), 30_000);
    expect(documents.records.filter((record) => record.documentId === documentId)).to.have.length(1);
    expect(await running.runs.forDocument(documentId)).to.have.length(1);
  });

  it("reads a payment QR code in its reader process, and its disagreement with the printed IBAN reaches the document's messages", async () => {
    const pdf = corpus.find((document) => document.format === "pdf_text") as CorpusDocument;
    const coded = { ...paymentOf(pdf.truth), iban: OTHER_IBAN };
    const { documentId } = await upload({ ...pdf, bytes: await invoiceWithCodes(pdf.truth, [spayd(coded)]) }, builtinQueue);
    const record = await eventually(() => documents.records.find((candidate) => candidate.documentId === documentId));
    const iban = JSON.parse(record.extractionJson).annotations.find((annotation: { key: string }) => annotation.key === "iban");
    expect(iban).to.include({ value: OTHER_IBAN, source: "builtin:qr", confidence: 50 });
    expect(JSON.parse(record.messagesJson)).to.deep.include({
      key: "iban",
      message: `The payment QR code says IBAN ${OTHER_IBAN} but the invoice prints ${pdf.truth.supplier.iban}; the QR code's value was taken. Check which one is right.`,
      severity: "warning",
    });
  });

  it("ends a bad file with a message instead of fields", async () => {
    const { documentId } = await upload(
      {
        ...(corpus[0] as CorpusDocument),
        bytes: new TextEncoder().encode('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a SYSTEM "file:///etc/passwd">]><x>&a;</x>'),
      },
      builtinQueue,
    );
    const record = await eventually(() => documents.records.find((candidate) => candidate.documentId === documentId));
    expect(JSON.parse(record.extractionJson)).to.deep.equal({ annotations: [], confidence: null });
    expect(JSON.parse(record.messagesJson)[0].message).to.match(/DOCTYPE/);
  });

  it("sends a file that overruns its reader's memory to extraction_failed within seconds, stays up, and reads the next organization's file", async () => {
    const [bomb] = (await badInvoiceFiles()).filter((file) => file.name === "bomb.pdf") as [BadFile];
    const started = Date.now();
    const { documentId } = await upload({ ...(corpus[0] as CorpusDocument), bytes: bomb.bytes }, builtinQueue);
    const record = await eventually(() => documents.records.find((candidate) => candidate.documentId === documentId), 60_000);
    expect(Date.now() - started).to.be.below(30_000);
    expect(record.failed).to.equal(true);
    expect(JSON.parse(record.messagesJson)[0].message).to.match(/more than 192 MB of memory/);
    expect((await running.runs.forDocument(documentId)).map((run) => run.outcome)).to.deep.equal(["failed"]);
    const probe = await probeRunningService(running);
    expect(probe.ready).to.equal(true);

    const isdoc = corpus.find((document) => document.format === "isdoc") as CorpusDocument;
    const other = await upload(isdoc, builtinQueue);
    const next = await eventually(() => documents.records.find((candidate) => candidate.documentId === other.documentId), 60_000);
    expect(next.failed).to.equal(false);
    expect(JSON.parse(next.extractionJson).annotations.length).to.be.greaterThan(0);
  });

  it("gives a file up with extraction_failed once its reads were started EXTRACTION_MAX_READS times without ending (each stopped the service)", async () => {
    const pdf = corpus.find((document) => document.format === "pdf_text") as CorpusDocument;
    const documentId = randomUUID();
    documents.files.set(documentId, { bytes: pdf.bytes, contentType: pdf.contentType, fileName: pdf.name });
    const event = createEvent("document.created", {
      organization_id: organizationId,
      data: {
        document_id: documentId,
        queue_id: builtinQueue,
        workspace_id: workspaceId,
        organization_id: organizationId,
        file_name: pdf.name,
        file_sha256: null,
      },
    });
    // Three reads started and never ended: what a file that kills the service each time leaves behind.
    for (let read = 0; read < config.EXTRACTION_MAX_READS; read += 1)
      await running.runs.startRead({ eventId: event.id, documentId, queueId: builtinQueue });
    await bus.publish(eventSubject("document.created"), { ...event, data: { ...event.data, has_file: true } }, { msgId: event.id });
    const record = await eventually(() => documents.records.find((candidate) => candidate.documentId === documentId), 30_000);
    expect(record.failed).to.equal(true);
    expect(JSON.parse(record.extractionJson)).to.deep.equal({ annotations: [], confidence: null });
    expect(JSON.parse(record.messagesJson)[0].message).to.match(/stopped the reader 3 times; it was given up/);
  });

  it("does not count reads that ended against a file: a delivery retried EXTRACTION_MAX_READS times because document was away is still read", async () => {
    const cii = corpus.find((document) => document.format === "cii") as CorpusDocument;
    documents.failNextRecord = config.EXTRACTION_MAX_READS;
    const { documentId } = await upload(cii, builtinQueue);
    const record = await eventually(() => documents.records.find((candidate) => candidate.documentId === documentId), 60_000);
    expect(record.failed).to.equal(false);
    expect(JSON.parse(record.extractionJson).annotations.length).to.be.greaterThan(0);
  });

  it("leaves out what the document service would refuse (over 2,000 rows), with an info message, instead of failing the record", () => {
    const rows = Array.from({ length: 2_100 }, (_, index) => ({ activity: `Row ${index}`, total_incl_tax: "1.00" }));
    const long = "x".repeat(10_001);
    const { annotations, clamped } = annotationsFor(
      {
        format: "pdf_text",
        fields: { invoice_id: { value: long, confidence: 60, source: "builtin:pdf_text" } },
        lineItems: { rows, confidence: 80, source: "builtin:pdf_text" },
        messages: [],
      },
      SCHEMA,
    );
    expect(annotations.find((annotation) => annotation.key === "invoice_id")).to.equal(undefined);
    expect(annotations.find((annotation) => annotation.key === "line_items")?.rows).to.have.length(2_000);
    expect(clamped.map((message) => message.message)).to.deep.equal([
      "The value read is longer than 10000 characters; it was left out.",
      "The table has 2100 rows; the first 2000 were kept and the rest left out.",
    ]);
  });
});
