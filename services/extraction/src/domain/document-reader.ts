import type { DocexEvent } from "@docex/events";
import type { Logger } from "@docex/kit/logger";
import type { Metrics } from "@docex/kit/metrics";
import { annotationsFor, messagesFor } from "../engine/annotations.js";
import { isWithheldMessage } from "../engine/confidence.js";
import { sniffKind } from "../engine/engine.js";
import type { ExtractionPool } from "../engine/pool.js";
import type { ExtractionMessage, ExtractionResult } from "../engine/types.js";
import type { PageStore } from "../store/page-store.js";
import type { RunStore } from "../store/run-store.js";
import type { CallContext, DocumentPort } from "./document-port.js";
import type { LayoutLearning } from "./layout-learning.js";
import { LAYOUT_SOURCE } from "./layout-memory.js";
import type { ReadScheduler } from "./read-scheduler.js";

/** document.created as this service reads it: `has_file` says whether document keeps the file. */
export type DocumentCreated = Omit<DocexEvent<"document.created">, "data"> & {
  data: DocexEvent<"document.created">["data"] & { has_file?: boolean };
};

/** The durable consumer's name; instances share it, so each document is read by one of them. */
export const DOCUMENT_CREATED_CONSUMER = "extraction__document_created";

export interface DocumentReaderDeps {
  documents: DocumentPort;
  pool: Pick<ExtractionPool, "extract">;
  /** Who reads next: text before scans, organizations in turn. */
  scheduler: ReadScheduler;
  runs: RunStore;
  /** Where the pages and words of a file read are kept for the pages API. */
  pages?: Pick<PageStore, "keep">;
  /** The supplier layouts learned from validation: a known supplier's fields are read where it prints them. */
  layouts?: Pick<LayoutLearning, "apply">;
  logger: Logger;
  metrics?: Metrics;
  maxFileBytes: number;
  /** Reads of one file started before it is given up (a file that stopped the service each time it was read). */
  maxReads: number;
}

/** The document service's bounds on what an engine sends (its annotation and message schemas). */
const MAX_MESSAGES = 500;
const MAX_MESSAGE_LENGTH = 2_000;

/**
 * document.created with a file → read the file from document (streamed), extract it, and hand the result
 * to document through RecordExtraction (the path of POST /documents/{id}/extraction), keyed by the event id.
 *
 * Exactly once per document: document applies one extraction per idempotency key, and a run is recorded
 * here only after document answered, so a crash anywhere before that repeats the whole read (the
 * event is redelivered) and a crash after it finds document's answer to the same key.
 */
export class DocumentReader {
  constructor(private readonly deps: DocumentReaderDeps) {}

  async onCreated(event: DocumentCreated): Promise<void> {
    const { documents, runs, logger } = this.deps;
    const data = event.data;
    const organizationId = event.organization_id ?? data.organization_id;
    if (!data.has_file || !organizationId) return;
    if (await runs.handled(event.id)) return;
    const ctx = event.request_id ? { requestId: event.request_id } : {};
    const base = { eventId: event.id, documentId: data.document_id, queueId: data.queue_id };
    const started = Date.now();

    const queue = await documents.findQueue(data.queue_id, ctx);
    if (!queue) return runs.record({ ...base, format: null, outcome: "skipped_no_queue", fieldsFound: 0, durationMs: 0 });
    if (queue.extractionEngine !== "builtin")
      return runs.record({ ...base, format: null, outcome: "skipped_external", fieldsFound: 0, durationMs: 0 });

    // The text lane first: an e-invoice or a PDF with text is read there at once; a file that needs OCR only finds
    // that out there, and waits for its turn in the OCR lane.
    let result = await this.deps.scheduler.run(organizationId, "text", () => this.read(base, organizationId, ctx, { deferOcr: true }));
    if (result !== "no_file" && result.needsOcr)
      result = await this.deps.scheduler.run(organizationId, "ocr", () => this.read(base, organizationId, ctx, { counted: true }));
    if (result === "no_file") return runs.record({ ...base, format: null, outcome: "skipped_no_file", fieldsFound: 0, durationMs: 0 });
    const read = result.stopped ? { annotations: [], confidence: null, clamped: [] } : annotationsFor(result, queue.schema);
    const { clamped } = read;
    let { annotations, confidence } = read;
    if (this.deps.layouts && !result.stopped && result.pages) {
      const words = new Map(result.pages.flatMap((page) => (page.words?.length ? [[page.page, page.words] as const] : [])));
      const laidOut = await this.deps.layouts.apply(data.queue_id, queue.schema, annotations, words);
      if (laidOut !== annotations) {
        annotations = laidOut;
        confidence = meanConfidence(annotations) ?? confidence;
      }
    }
    // A value the engine left empty that the supplier's layout has read needs no message about it any more.
    const laid = new Set(annotations.flatMap((annotation) => (annotation.source === LAYOUT_SOURCE ? [annotation.key] : [])));
    const messages = messagesFor([...result.messages, ...clamped], queue.schema).filter(
      (message) => !(isWithheldMessage(message) && laid.has(message.key as string)),
    );
    if (annotations.length === 0 && messages.length === 0)
      messages.push({ key: null, message: "The built-in engine found no field in this document.", severity: "info" });
    const answer = await documents.recordExtraction(
      {
        organizationId,
        documentId: data.document_id,
        idempotencyKey: event.id,
        extractionJson: JSON.stringify({ annotations, confidence }),
        messagesJson: JSON.stringify(withinBounds(messages)),
        failed: result.stopped === true,
      },
      ctx,
    );
    // Kept before the run: a crash between the two reads the file again and keeps the same pages.
    if (result.pages && !result.stopped)
      await this.deps.pages?.keep({ documentId: data.document_id, queueId: data.queue_id }, result.pages);
    const durationMs = Date.now() - started;
    const outcome = answer.applied ? (result.stopped ? "failed" : "applied") : answer.reason || "refused";
    logger.info(
      { document_id: data.document_id, format: result.format, fields: annotations.length, outcome, duration_ms: durationMs },
      "document read",
    );
    await runs.record({ ...base, format: result.format, outcome, fieldsFound: annotations.length, durationMs });
  }

  /**
   * Reads the event's file from document and extracts it. A read that starts is counted against the file until it
   * ends (a file that stops the service each time is given up after `maxReads`); the OCR run of a file whose text
   * read found none continues that read (`counted`) rather than starting another.
   */
  private async read(
    base: { eventId: string; documentId: string; queueId: string },
    organizationId: string,
    ctx: CallContext,
    how: { deferOcr?: boolean; counted?: boolean },
  ): Promise<ExtractionResult | "no_file"> {
    const { documents, runs, maxFileBytes, maxReads } = this.deps;
    const file = await documents.readFile(organizationId, base.documentId, maxFileBytes, ctx);
    // Gone, or replaced by a larger one, since the text read that counted this one: that read ends here.
    if (how.counted && (file === undefined || file === "too_large")) await runs.endRead(base.eventId);
    if (file === undefined) return "no_file";
    if (file === "too_large")
      return {
        format: "unreadable",
        fields: {},
        messages: [{ key: null, message: `The file is larger than ${maxFileBytes} bytes; it was not read.`, severity: "warning" }],
      };
    const reads = how.counted ? 0 : await runs.startRead(base);
    if (reads > maxReads)
      // The earlier reads never ended (each stopped the service before the pool answered): not one more.
      return {
        format: "unreadable",
        fields: {},
        messages: [
          {
            key: null,
            message: `Reading this file stopped the reader ${reads - 1} times; it was given up. Fill the fields by hand or upload another file.`,
            severity: "warning",
          },
        ],
        stopped: true,
      };
    const input = { bytes: file.bytes, fileName: file.fileName, contentType: file.contentType };
    // An image is a scan, known by its bytes: it waits for the OCR lane. A PDF is read whole where it is (a scanned
    // PDF is OCRed in the text lane): finding out that it has no text costs a parse that a second read would repeat,
    // and a 10,000-page PDF parsed twice in one reader went over the reader's memory cap.
    const result: ExtractionResult =
      how.deferOcr && sniffKind(file.bytes) === "image"
        ? { format: "ocr", fields: {}, messages: [], needsOcr: true }
        : await this.deps.pool.extract(input);
    if (!result.needsOcr) await runs.endRead(base.eventId);
    return result;
  }
}

/** The engine's messages as the document service takes them: each shortened, and at most MAX_MESSAGES. */
function withinBounds(messages: ExtractionMessage[]): ExtractionMessage[] {
  const shortened = messages.map((message) =>
    message.message.length > MAX_MESSAGE_LENGTH ? { ...message, message: `${message.message.slice(0, MAX_MESSAGE_LENGTH - 1)}…` } : message,
  );
  if (shortened.length <= MAX_MESSAGES) return shortened;
  return [
    ...shortened.slice(0, MAX_MESSAGES - 1),
    { key: null, message: `${shortened.length - MAX_MESSAGES + 1} more messages of the engine were left out.`, severity: "info" },
  ];
}

/** The document's confidence as annotationsFor gives it: the mean of its fields'. */
function meanConfidence(annotations: readonly { confidence?: number }[]): number | null {
  const values = annotations.flatMap((annotation) => (annotation.confidence === undefined ? [] : [annotation.confidence]));
  return values.length ? Math.round(values.reduce((sum, value) => sum + value, 0) / values.length) : null;
}
