import type { Annotation, FieldDefinition } from "@docex/annotations";
import type { DocumentStatus } from "@docex/events";
import { EXTRACTION_ENGINES, type ExtractionEngine } from "@docex/queue-dto";

export type { Annotation, DocumentStatus };

export interface OrganizationRef {
  id: string;
  humanizedId: string;
  name: string;
}

export interface Workspace {
  id: string;
  humanizedId: string;
  organizationId: string;
  name: string;
  createdAt: Date;
}

export interface Queue {
  id: string;
  humanizedId: string;
  workspaceId: string;
  organizationId: string;
  name: string;
  annotationSchema: FieldDefinition[];
  /** An upload of a file the organization already has (same SHA-256, not deleted) is refused with 409. Fixed at creation. */
  duplicateFileRejection: boolean;
  /** Who reads uploaded files: the extraction service ("builtin") or an outside engine posting /extraction. Fixed at creation. */
  extractionEngine: ExtractionEngine;
  /** Days a document is kept before the lifetime sweep purges it; null: kept. */
  documentLifetimeDays: number | null;
  /** The random part of the queue's inbox address (`<humanizedId>.<inboxToken>@<INTAKE_MAIL_DOMAIN>`). */
  inboxToken: string;
  /** Addresses and `@domain`s that may mail the inbox; empty: anyone. */
  inboxAllowedSenders: string[];
  /** What people confirm in validation feeds the supplier memory (learning's values, extraction's layouts). */
  learnFromValidation: boolean;
  createdAt: Date;
}

export { EXTRACTION_ENGINES, type ExtractionEngine };

export const MESSAGE_SEVERITIES = ["error", "warning", "info"] as const;
export type MessageSeverity = (typeof MESSAGE_SEVERITIES)[number];

/** Who changed a document: a user through the API, the extraction engine, another context over gRPC, or an export run. */
export const CHANGE_SOURCES = ["user", "ai", "automation", "learning", "validation", "export"] as const;
export type ChangeSource = (typeof CHANGE_SOURCES)[number];
export const SERVICE_SOURCES = ["automation", "learning", "validation"] as const satisfies readonly ChangeSource[];
export type ServiceSource = (typeof SERVICE_SOURCES)[number];

/** Why extraction evaluation kept a document for manual validation: the field a threshold names (null: the document) and why. */
export interface AutomationBlocker {
  key: string | null;
  reason: string;
}

export interface DocumentMessage {
  key: string | null;
  message: string;
  severity: MessageSeverity;
  /**
   * Kept so that a new validation answer replaces only what the previous one added; never shown. `duplicate_check`
   * marks the duplicate warning, which is worked out on reading and never stored.
   */
  source: ChangeSource | "duplicate_check";
  /**
   * A message about the validation itself (the validator was unavailable, parts of its answer were ignored), not
   * about the document: the next failure replaces it without touching the last answer's messages. Never shown.
   */
  notice?: true;
}

export interface RegisterOption {
  label: string;
  value: string;
}

/** One stage of an approval route: who approves, and how many of them must. */
export interface ApprovalStage {
  approverIds: string[];
  minApprovals: number;
}

export interface ApprovalDecision {
  userId: string;
  /** 0-based index of the stage the decision was made in. */
  stage: number;
  decision: "approved" | "rejected";
  /** ISO 8601. */
  at: string;
}

/** Where a document stands on its approval route. */
export interface ApprovalState {
  stages: ApprovalStage[];
  /** 0-based index of the current stage. */
  stage: number;
  decisions: ApprovalDecision[];
}

/** The channel a document came in through: `api` (an upload), `email` (the intake, with what the mail said). */
export interface DocumentSource {
  channel: "api" | "email";
  from?: string;
  subject?: string;
  message_id?: string;
  /** ISO 8601. */
  received_at?: string;
  /** The mail's SPF, DKIM and DMARC verdicts, as the intake judged them. */
  auth?: { spf: string; dkim: string; dmarc: string };
}

/** One export of a document: by an export of the queue (a run of it), or recorded by an integrator (export and run null). */
export interface DocumentExport {
  export_id: string | null;
  run_id: string | null;
  format: string | null;
  status: "exported" | "export_failed";
  /** ISO 8601. */
  at: string;
}

export interface StoredDocument {
  id: string;
  queueId: string;
  workspaceId: string;
  organizationId: string;
  fileName: string;
  /** Hex SHA-256 of the bytes uploaded with the document; null when only a file name was sent. */
  fileSha256: string | null;
  /** The kept file's media type, sniffed from its bytes; null when no file is kept (none uploaded, or purged). */
  fileContentType: string | null;
  /** The kept file's size in bytes; null when no file is kept. */
  fileSize: number | null;
  status: DocumentStatus;
  annotations: Annotation[];
  messages: DocumentMessage[];
  options: Record<string, RegisterOption[]>;
  /** The current stage's approvers (all the approvers when the document has no route). */
  approvers: string[];
  approval: ApprovalState | null;
  confidence: number | null;
  /** What the last automation run's extraction evaluation found missing; empty when nothing kept the document. */
  automationBlockers: AutomationBlocker[];
  source: DocumentSource;
  /** The accounting system's id of the document, as an integrator recorded it (export-result). */
  externalId: string | null;
  /** Every export of the document, oldest first. */
  exports: DocumentExport[];
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface Page<T> {
  items: T[];
  page: number;
  pageSize: number;
  total: number;
}
