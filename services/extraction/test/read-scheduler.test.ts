import { randomUUID } from "node:crypto";
import { createEvent, eventSubject } from "@docex/events";
import { EventBus } from "@docex/kit/bus";
import { createLogger } from "@docex/kit/logger";
import { dropDatabase, eventually, testEventNamespace, testNatsUrl, testServiceConfig } from "@docex/testkit";
import { buildInvoiceCorpus, type CorpusDocument } from "@docex/testkit/invoice-corpus";
import { expect } from "chai";
import type { QueueView } from "../src/domain/document-port.js";
import { type Lane, ReadScheduler, SchedulerClosedError } from "../src/domain/read-scheduler.js";
import { ocrAvailable } from "../src/engine/ocr.js";
import { configSchema, startExtractionService } from "../src/service.js";
import { DocumentDouble } from "./support/document-double.js";

/** A read that ends when the test says so, and remembers when it started. */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe("the read scheduler: text before scans, organizations in turn (unit)", () => {
  function schedule(scheduler: ReadScheduler, started: string[], name: string, organization: string, lane: Lane) {
    const ends = gate();
    const done = scheduler.run(organization, lane, async () => {
      started.push(name);
      await ends.opened;
      return name;
    });
    return { done, end: ends.open };
  }

  it("keeps one reader for text: scans take at most ocrReaders, and a text file starts while they run", async () => {
    const scheduler = new ReadScheduler({ readers: 3, ocrReaders: 2 });
    const started: string[] = [];
    const scans = ["s1", "s2", "s3"].map((name) => schedule(scheduler, started, name, "a", "ocr"));
    expect(started).to.deep.equal(["s1", "s2"]);
    const text = schedule(scheduler, started, "t1", "b", "text");
    expect(started).to.deep.equal(["s1", "s2", "t1"]);
    expect(scheduler.reading()).to.deep.equal({ text: 1, ocr: 2 });
    expect(scheduler.waiting()).to.deep.equal({ text: 0, ocr: 1 });
    text.end();
    expect(await text.done).to.equal("t1");
    // The free reader is the text one: the third scan still waits for a scan to end.
    expect(started).to.have.length(3);
    scans[0]?.end();
    await scans[0]?.done;
    expect(started).to.deep.equal(["s1", "s2", "t1", "s3"]);
    for (const scan of scans) scan.end();
    await Promise.all(scans.map((scan) => scan.done));
  });

  it("a waiting text file goes before waiting scans when a reader frees", async () => {
    const scheduler = new ReadScheduler({ readers: 2, ocrReaders: 1 });
    const started: string[] = [];
    const first = schedule(scheduler, started, "t1", "a", "text");
    const second = schedule(scheduler, started, "t2", "a", "text");
    const scan = schedule(scheduler, started, "s1", "a", "ocr");
    const third = schedule(scheduler, started, "t3", "a", "text");
    expect(started).to.deep.equal(["t1", "t2"]);
    first.end();
    await first.done;
    expect(started).to.deep.equal(["t1", "t2", "t3"]);
    for (const job of [second, third, scan]) job.end();
    await Promise.all([second.done, third.done]);
    await scan.done;
    expect(started).to.deep.equal(["t1", "t2", "t3", "s1"]);
  });

  it("organizations take turns within a lane: a late organization's file is next, not behind the busy one's backlog", async () => {
    const scheduler = new ReadScheduler({ readers: 2, ocrReaders: 1 });
    const started: string[] = [];
    const jobs = new Map<string, ReturnType<typeof schedule>>();
    for (const name of ["a1", "a2", "a3", "a4"]) jobs.set(name, schedule(scheduler, started, name, "a", "ocr"));
    jobs.set("c1", schedule(scheduler, started, "c1", "c", "ocr"));
    jobs.set("d1", schedule(scheduler, started, "d1", "d", "ocr"));
    jobs.set("c2", schedule(scheduler, started, "c2", "c", "ocr"));
    // One scan at a time: end whichever started last, six times.
    for (let index = 0; index < 6; index += 1) {
      const job = jobs.get(started.at(-1) as string);
      job?.end();
      await job?.done;
    }
    expect(started).to.deep.equal(["a1", "c1", "d1", "a2", "c2", "a3", "a4"]);
    for (const job of jobs.values()) job.end();
    await Promise.all([...jobs.values()].map((job) => job.done));
  });

  it("closing lets go of waiting files with SchedulerClosedError and refuses new ones; reads in hand finish", async () => {
    const scheduler = new ReadScheduler({ readers: 2, ocrReaders: 1 });
    const started: string[] = [];
    const reading = schedule(scheduler, started, "s1", "a", "ocr");
    const waiting = schedule(scheduler, started, "s2", "a", "ocr");
    scheduler.close();
    const refused = await waiting.done.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(SchedulerClosedError);
    const late = await scheduler.run("a", "text", async () => "late").catch((error: unknown) => error);
    expect(late).to.be.instanceOf(SchedulerClosedError);
    reading.end();
    expect(await reading.done).to.equal("s1");
    expect(started).to.deep.equal(["s1"]);
  });

  it("refuses a configuration that would let scans take every reader", () => {
    expect(() => new ReadScheduler({ readers: 2, ocrReaders: 2 })).to.throw(/ocrReaders/);
    expect(() => new ReadScheduler({ readers: 2, ocrReaders: 0 })).to.throw(/ocrReaders/);
  });
});

describe("the extraction service schedules fairly (real Postgres, NATS and OCR; one OCR reader)", function () {
  this.timeout(120_000);
  const documents = new DocumentDouble();
  const queueId = randomUUID();
  const SCHEMA: QueueView["schema"] = [
    { key: "invoice_id", type: "string" },
    { key: "total_due", type: "number" },
  ];
  let config: ReturnType<typeof configSchema.parse>;
  let running: Awaited<ReturnType<typeof startExtractionService>> | undefined;
  let bus: EventBus | undefined;
  let corpus: CorpusDocument[] = [];

  before(async function () {
    if (!(await ocrAvailable())) this.skip();
    corpus = await buildInvoiceCorpus({ einvoices: 0, textPdfs: 1, scans: 14, offset: 940 });
    if (corpus.filter((document) => document.format === "scan_png").length < 7) this.skip();
    documents.queues.set(queueId, { id: queueId, extractionEngine: "builtin", schema: SCHEMA, learnFromValidation: true });
    config = testServiceConfig("extraction", { EXTRACTION_WORKERS: 1, EXTRACTION_TIMEOUT_MS: 30_000 }, configSchema);
    running = await startExtractionService(config, { documents });
    bus = await EventBus.connect({
      url: testNatsUrl(),
      name: "extraction-fairness-test",
      logger: createLogger("test", "silent"),
      namespace: testEventNamespace(),
    });
  });

  after(async () => {
    await bus?.close();
    await running?.stop();
    if (config) await dropDatabase(config.DATABASE_NAME);
  });

  async function upload(document: CorpusDocument, organizationId: string): Promise<string> {
    const documentId = randomUUID();
    documents.files.set(documentId, { bytes: document.bytes, contentType: document.contentType, fileName: document.name });
    const event = createEvent("document.created", {
      organization_id: organizationId,
      data: {
        document_id: documentId,
        queue_id: queueId,
        workspace_id: randomUUID(),
        organization_id: organizationId,
        file_name: document.name,
        file_sha256: null,
      },
    });
    await (bus as EventBus).publish(
      eventSubject("document.created"),
      { ...event, data: { ...event.data, has_file: true } },
      { msgId: event.id },
    );
    return documentId;
  }

  const recorded = (ids: string[]) => documents.records.filter((record) => ids.includes(record.documentId)).length;

  it("another organization's text PDF is read while one organization's scans wait, and its scan waits for one of them, not all", async () => {
    // Images: a scanned PDF is read (and OCRed) in the text lane, see DECISIONS.md.
    const scans = corpus.filter((document) => document.format === "scan_png");
    const pdf = corpus.find((document) => document.format === "pdf_text") as CorpusDocument;
    const busy = randomUUID();
    const busyIds: string[] = [];
    for (const scan of scans.slice(0, 6)) busyIds.push(await upload(scan, busy));
    // Every one of them is in hand and has found out it is a scan (its file read once in the text lane).
    await eventually(() => busyIds.every((id) => documents.reads.includes(id)) || undefined, 30_000);

    const pdfId = await upload(pdf, randomUUID());
    await eventually(() => recorded([pdfId]) === 1 || undefined, 30_000);
    // At most the scan that was being read ended meanwhile.
    expect(recorded(busyIds)).to.be.at.most(1);
    const record = documents.records.find((candidate) => candidate.documentId === pdfId);
    expect(
      JSON.parse(record?.extractionJson ?? "{}").annotations.find((annotation: { key: string }) => annotation.key === "invoice_id"),
    ).to.include({
      value: pdf.expected.fields.invoice_id,
    });

    const lateId = await upload(scans[6] as CorpusDocument, randomUUID());
    await eventually(() => recorded([lateId]) === 1 || undefined, 60_000);
    // The late organization's scan waited for the scan in hand and at most one more turn of the busy organization.
    expect(recorded(busyIds)).to.be.at.most(3);
    const lateRecord = documents.records.find((candidate) => candidate.documentId === lateId);
    expect(lateRecord?.failed).to.equal(false);
  });
});
