import type { AutomationBlocker } from "./extraction-evaluation.js";
import type { Annotation, ApprovalStage, DocumentStatus, QueueRecord } from "./records.js";

export interface CallContext {
  requestId?: string;
}

/** The parts of a document automation reads. */
export interface DocumentState {
  id: string;
  queueId: string;
  organizationId: string;
  status: DocumentStatus;
  annotations: Annotation[];
  approvers: string[];
  confidence: number | null;
  version: number;
}

/** A change for ApplyDocumentChanges, in automation's terms. */
export interface DocumentChange {
  documentId: string;
  expectedVersion: number;
  annotations: Annotation[];
  approvers: string[];
  /** The approval route the approvers belong to (its current stage is `stage`, 0-based); absent without one. */
  approvalRoute?: { stages: ApprovalStage[]; stage: number };
  status?: DocumentStatus;
  appliedRules: string[];
  /** Why extraction evaluation keeps the document for people (replacing what the last run said); absent with evaluation off. */
  automationBlockers?: AutomationBlocker[];
  idempotencyKey: string;
}

export type RefusalReason = "version_conflict" | "status_move_not_allowed" | "blocked_by_error_messages" | "document_not_editable";

export interface ChangeOutcome {
  applied: boolean;
  reason: RefusalReason | "";
  document: DocumentState;
}

/** What automation needs of the document service. */
export interface DocumentPort {
  /** The queue named by a UUID or humanized id; NotFoundError when there is none. */
  queue(ref: string, ctx?: CallContext): Promise<QueueRecord>;
  applyChanges(change: DocumentChange, ctx?: CallContext): Promise<ChangeOutcome>;
  close(): void;
}
