import type { Annotation, SchemaField } from "@docex/annotations";

export interface CallContext {
  requestId?: string;
}

export interface QueueView {
  id: string;
  /** "builtin": this service extracts; "external": an outside engine posts the extraction. */
  extractionEngine: "builtin" | "external";
  schema: SchemaField[];
  /** The queue option: what people validate teaches the supplier layouts. */
  learnFromValidation: boolean;
}

/** A document as the pages API needs it: whose it is, and who may see it. */
export interface DocumentView {
  id: string;
  organizationId: string;
  queueId: string;
  /** An approver sees only the documents they are assigned to. */
  approvers: string[];
  annotations: Annotation[];
}

export interface DocumentFile {
  bytes: Uint8Array;
  contentType: string;
  fileName: string;
}

export interface ExtractionRecord {
  organizationId: string;
  documentId: string;
  idempotencyKey: string;
  extractionJson: string;
  messagesJson: string;
  /** The reader was stopped or given up: the document moves to extraction_failed with the messages. */
  failed: boolean;
}

/** What this service needs of the document service (gRPC in production, a double in tests). */
export interface DocumentPort {
  findQueue(queueId: string, ctx?: CallContext): Promise<QueueView | undefined>;
  /** The document by id, of any organization (the caller checks access); undefined when there is none. */
  findDocument(documentId: string, ctx?: CallContext): Promise<DocumentView | undefined>;
  /** The document's file, streamed and collected up to `maxBytes`; undefined when the document has none. */
  readFile(
    organizationId: string,
    documentId: string,
    maxBytes: number,
    ctx?: CallContext,
  ): Promise<DocumentFile | "too_large" | undefined>;
  recordExtraction(record: ExtractionRecord, ctx?: CallContext): Promise<{ applied: boolean; reason: string }>;
}
