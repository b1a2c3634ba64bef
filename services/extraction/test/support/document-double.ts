import type { DocumentFile, DocumentView, ExtractionRecord, QueueView } from "../../src/domain/document-port.js";
import type { DocumentPort } from "../../src/service.js";

/** The document service as this service sees it: queues, files, and RecordExtraction idempotent per key like document's. */
export class DocumentDouble implements DocumentPort {
  readonly queues = new Map<string, QueueView>();
  readonly files = new Map<string, DocumentFile>();
  readonly documents = new Map<string, DocumentView>();
  readonly records: ExtractionRecord[] = [];
  readonly applied = new Set<string>();
  /** The documents whose file was read, in the order of the reads. */
  readonly reads: string[] = [];
  failNextRecord = 0;

  async findQueue(queueId: string) {
    return this.queues.get(queueId);
  }
  async findDocument(documentId: string) {
    return this.documents.get(documentId);
  }
  async readFile(_organizationId: string, documentId: string, maxBytes: number) {
    this.reads.push(documentId);
    const file = this.files.get(documentId);
    if (file && file.bytes.length > maxBytes) return "too_large" as const;
    return file;
  }
  async recordExtraction(record: ExtractionRecord) {
    if (this.failNextRecord > 0) {
      this.failNextRecord -= 1;
      throw new Error("document service unavailable");
    }
    this.records.push(record);
    if (this.applied.has(record.idempotencyKey)) return { applied: false, reason: "already_applied" };
    this.applied.add(record.idempotencyKey);
    return { applied: true, reason: "" };
  }
}
