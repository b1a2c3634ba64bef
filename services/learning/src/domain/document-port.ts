import type { QueueView } from "./annotation-schema.js";
import type { Annotation, DocumentView } from "./records.js";

export interface CallContext {
  requestId?: string;
}

/** Learned values for one document, based on the version the plan was made from. */
export interface LearnedValuesChange {
  documentId: string;
  expectedVersion: number;
  annotations: Annotation[];
  /** A key the document service has seen answers its first outcome without applying anything again. */
  idempotencyKey: string;
}

export interface LearnedValuesOutcome {
  applied: boolean;
  /** Empty when applied; otherwise the document service's refusal, e.g. "version_conflict". */
  reason: string;
  /** The document after the call, whether or not the change was applied. */
  document: DocumentView;
}

/** What learning needs of the document service (src/clients/document.ts implements it over gRPC). */
export interface DocumentPort {
  /** Undefined for an unknown document. */
  findDocument(documentId: string, ctx?: CallContext): Promise<DocumentView | undefined>;
  /** Undefined for an unknown queue. */
  findQueue(queueId: string, ctx?: CallContext): Promise<QueueView | undefined>;
  /** A queue by UUID or humanized id; undefined when none has it. */
  resolveQueue(ref: string, ctx?: CallContext): Promise<{ queueId: string; organizationId: string } | undefined>;
  /** ApplyDocumentChanges with source "learning"; NotFoundError for a document that is gone. */
  applyLearnedValues(change: LearnedValuesChange, ctx?: CallContext): Promise<LearnedValuesOutcome>;
}
