/**
 * Extraction fairness (issue 36, item 9): how long another organization's one-page text PDF waits while one
 * organization's scans are queued, against the same PDF on an idle service, side by side in one run.
 *
 *   npm run build && node bench/dist/extraction-fairness.js
 *
 * The extraction service runs in this process with real Postgres, NATS and OCR (its readers are child processes, as
 * in production); the document service is played by an in-memory source, so what is measured is the service's own
 * scheduling: from publishing `document.created` to the extraction's record. Sizes: FAIRNESS_SCANS (500 queued
 * scans), FAIRNESS_WORKERS (4 OCR readers, the aim), FAIRNESS_PROBES (9 text PDFs, 500 ms apart).
 * Skipped with a message where tesseract or pdftoppm is absent.
 */
import { randomUUID } from "node:crypto";
import { cpus, loadavg } from "node:os";
import { createEvent, eventSubject } from "@docex/events";
import { configSchema, type DocumentPort, startExtractionService } from "@docex/extraction";
import { ocrAvailable } from "@docex/extraction/engine";
import { EventBus } from "@docex/kit/bus";
import { createLogger } from "@docex/kit/logger";
import { dropDatabase, testEventNamespace, testNatsUrl, testServiceConfig } from "@docex/testkit";
import { buildInvoiceCorpus, type CorpusDocument } from "@docex/testkit/invoice-corpus";
import { jetstreamManager } from "@nats-io/jetstream";

const SCANS = Number(process.env.FAIRNESS_SCANS ?? 500);
const WORKERS = Number(process.env.FAIRNESS_WORKERS ?? 4);
const PROBES = Number(process.env.FAIRNESS_PROBES ?? 9);

if (!(await ocrAvailable())) {
  console.log("extraction-fairness: skipped (tesseract or pdftoppm is not installed)");
  process.exit(0);
}

const corpus = await buildInvoiceCorpus({ einvoices: 0, textPdfs: 1, scans: 6, offset: 20_000 });
const pdf = corpus.find((document) => document.format === "pdf_text") as CorpusDocument;
// Images: they wait in the OCR lane (a scanned PDF is read in the text lane, see extraction's DECISIONS.md).
const scans = corpus.filter((document) => document.format === "scan_png");
const queueId = randomUUID();

/** The document service as extraction sees it: every file in memory, every record timed. */
const files = new Map<string, CorpusDocument>();
const recordedAt = new Map<string, number>();
const documents: DocumentPort = {
  findQueue: async (id) => ({
    id,
    extractionEngine: "builtin",
    schema: [{ key: "invoice_id", type: "string" }],
    learnFromValidation: false,
  }),
  // The bench asks for no page: nobody looks at a document here.
  findDocument: async () => undefined,
  readFile: async (_organizationId, documentId) => {
    const file = files.get(documentId);
    return file && { bytes: file.bytes, contentType: file.contentType, fileName: file.name };
  },
  recordExtraction: async (record) => {
    recordedAt.set(record.documentId, performance.now());
    return { applied: true, reason: "" };
  },
};

const namespace = testEventNamespace();
const config = testServiceConfig("extraction", { EXTRACTION_WORKERS: WORKERS, EXTRACTION_CONCURRENCY: SCANS + 100 }, configSchema);
const running = await startExtractionService(config, { documents });
const bus = await EventBus.connect({ url: testNatsUrl(), name: "bench-fairness", logger: createLogger("bench", "silent"), namespace });

async function publish(document: CorpusDocument, organizationId: string): Promise<{ id: string; at: number }> {
  const id = randomUUID();
  files.set(id, document);
  const event = createEvent("document.created", {
    organization_id: organizationId,
    data: {
      document_id: id,
      queue_id: queueId,
      workspace_id: randomUUID(),
      organization_id: organizationId,
      file_name: document.name,
      file_sha256: null,
    },
  });
  const at = performance.now();
  await bus.publish(eventSubject("document.created"), { ...event, data: { ...event.data, has_file: true } }, { msgId: event.id });
  return { id, at };
}

async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** One text PDF of a quiet organization at a time, PROBES times, 500 ms apart: its wait from publish to record. */
async function probe(): Promise<number[]> {
  const waits: number[] = [];
  const organizationId = randomUUID();
  for (let index = 0; index < PROBES; index += 1) {
    const { id, at } = await publish(pdf, organizationId);
    await until(() => recordedAt.has(id), 60_000);
    waits.push((recordedAt.get(id) as number) - at);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return waits;
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
};

try {
  // Warm: the readers' first file of each kind.
  await probe();
  const idle = await probe();

  const busy = randomUUID();
  const backlog: string[] = [];
  for (let index = 0; index < SCANS; index += 1) backlog.push((await publish(scans[index % scans.length] as CorpusDocument, busy)).id);
  // The backlog is in hand once every scan's file was read in the text lane (to learn it is a scan): readFile is
  // called then, and again for its OCR. Give the pump a moment, then probe while the scans are being read.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const readBefore = backlog.filter((id) => recordedAt.has(id)).length;
  const underLoad = await probe();
  const readAfter = backlog.filter((id) => recordedAt.has(id)).length;

  const row = (label: string, waits: number[]) =>
    `| ${label} | ${PROBES} | ${quantile(waits, 0.5).toFixed(0)} | ${quantile(waits, 0.95).toFixed(0)} | ${Math.max(...waits).toFixed(0)} |`;
  console.log(`\nExtraction fairness: ${WORKERS} OCR readers + 1 for text, ${cpus().length} cores, load ${loadavg()[0]?.toFixed(1)}`);
  console.log("\n| another organization's one-page text PDF | probes | p50 ms | p95 ms | max ms |\n|---|---:|---:|---:|---:|");
  console.log(row("idle service", idle));
  console.log(row(`${SCANS} scans of one organization queued`, underLoad));
  console.log(
    `\nratio under the backlog / idle, p50: ${(quantile(underLoad, 0.5) / quantile(idle, 0.5)).toFixed(2)}; scans read meanwhile: ${readAfter - readBefore} of ${SCANS} (${readBefore} before the probes)`,
  );
  console.log(
    `aim: the PDF waits ≤ 1 s more than on an idle service (p95 difference ${(quantile(underLoad, 0.95) - quantile(idle, 0.95)).toFixed(0)} ms)`,
  );
} finally {
  await bus.close();
  await running.stop();
  await dropDatabase(config.DATABASE_NAME);
  const cleanup = await EventBus.connect({
    url: testNatsUrl(),
    name: "bench-fairness-cleanup",
    logger: createLogger("bench", "silent"),
    namespace,
  });
  const jsm = await jetstreamManager(cleanup.connection);
  for (const stream of [namespace.stream, cleanup.deadLetterStream]) await jsm.streams.delete(stream).catch(() => undefined);
  await cleanup.close();
}
