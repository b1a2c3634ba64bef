import { ConflictError } from "@docex/kit/errors";
import type { DocumentMessage, DocumentStatus } from "./records.js";

interface StatusRow {
  /** Moves by `POST /documents/{id}/status` and by other contexts through ApplyDocumentChanges. */
  moves: readonly DocumentStatus[];
  /** Where the extraction result (`POST /documents/{id}/extraction`) takes a document in this status. */
  onExtraction?: DocumentStatus;
  /** Annotations can no longer change: the document is on its way out, out, or gone. */
  frozen?: true;
}

/** API.md "Status values and moves": the one table that says where a document may go. */
export const STATUS_TABLE: Readonly<Record<DocumentStatus, StatusRow>> = {
  received: { moves: ["extracting", "extraction_failed", "deleted"], onExtraction: "to_validate" },
  extracting: { moves: ["extraction_failed", "deleted"], onExtraction: "to_validate" },
  extraction_failed: { moves: ["extracting", "deleted"] },
  to_validate: { moves: ["in_approval", "ready_to_export", "postponed", "rejected", "deleted"] },
  in_approval: { moves: ["ready_to_export", "to_validate", "rejected", "deleted"] },
  ready_to_export: { moves: ["exporting", "exported", "to_validate", "deleted"] },
  exporting: { moves: ["exported", "export_failed"], frozen: true },
  export_failed: { moves: ["exporting", "ready_to_export", "to_validate", "deleted"] },
  postponed: { moves: ["to_validate", "deleted"] },
  rejected: { moves: ["to_validate", "deleted"] },
  exported: { moves: [], frozen: true },
  deleted: { moves: [], frozen: true },
};

/** Targets that a message of severity `error` blocks (spec: "cannot be moved ... for example sent to an ERP"). */
export const BLOCKED_BY_ERRORS: ReadonlySet<DocumentStatus> = new Set(["in_approval", "ready_to_export", "exporting", "exported"]);

/** What an approver may do with a document assigned to them: approve or reject it while it is in approval. */
export const APPROVAL_MOVES: Readonly<Partial<Record<DocumentStatus, readonly DocumentStatus[]>>> = {
  in_approval: ["ready_to_export", "rejected"],
};

export type MoveRefusal =
  | { reason: "status_move_not_allowed"; from: DocumentStatus; to: DocumentStatus; allowed: readonly DocumentStatus[] }
  | { reason: "blocked_by_error_messages"; from: DocumentStatus; to: DocumentStatus; messages: DocumentMessage[] };

export function allowedMoves(from: DocumentStatus): readonly DocumentStatus[] {
  return STATUS_TABLE[from].moves;
}

/**
 * The messages that block moves towards export. An export's own failure (`source: "export"`) says why the last export
 * failed, not what is wrong with the document: it does not stop the export from being tried again.
 */
export function errorMessagesOf(messages: readonly DocumentMessage[]): DocumentMessage[] {
  return messages.filter((message) => message.severity === "error" && message.source !== "export");
}

/** Why `from → to` may not happen given the document's messages, or undefined when it may. */
export function refuseMove(from: DocumentStatus, to: DocumentStatus, messages: readonly DocumentMessage[]): MoveRefusal | undefined {
  const allowed = allowedMoves(from);
  if (!allowed.includes(to)) return { reason: "status_move_not_allowed", from, to, allowed };
  const errors = errorMessagesOf(messages);
  if (BLOCKED_BY_ERRORS.has(to) && errors.length > 0) return { reason: "blocked_by_error_messages", from, to, messages: errors };
  return undefined;
}

export function isApprovalMove(from: DocumentStatus, to: DocumentStatus): boolean {
  return APPROVAL_MOVES[from]?.includes(to) ?? false;
}

export function isFrozen(status: DocumentStatus): boolean {
  return STATUS_TABLE[status].frozen === true;
}

/** The 409 a refused move answers: the current status and the allowed ones, or the blocking messages. */
export function moveConflict(refusal: MoveRefusal): ConflictError {
  if (refusal.reason === "status_move_not_allowed") {
    const allowed = refusal.allowed.length ? refusal.allowed.join(", ") : "no other status";
    return new ConflictError(
      `A document in status ${refusal.from} cannot move to ${refusal.to}; it can move to ${allowed}.`,
      refusal.reason,
      [{ path: "status", message: `not allowed from ${refusal.from}` }],
      { current_status: refusal.from, allowed_statuses: [...refusal.allowed] },
    );
  }
  const shown = refusal.messages.map(({ key, message, severity }) => ({ key, message, severity }));
  return new ConflictError(
    `The document has ${shown.length} error message(s) that block moving it to ${refusal.to}: ${shown.map((m) => m.message).join("; ")}`,
    refusal.reason,
    shown.map((m) => ({ path: m.key ?? "", message: m.message })),
    { current_status: refusal.from, messages: shown },
  );
}

/** The extraction result is accepted only before validation starts; the answer names the current status. */
export function extractionTarget(from: DocumentStatus): DocumentStatus {
  const target = STATUS_TABLE[from].onExtraction;
  if (target) return target;
  const accepted = (Object.keys(STATUS_TABLE) as DocumentStatus[]).filter((status) => STATUS_TABLE[status].onExtraction);
  throw new ConflictError(
    `An extraction result is accepted while a document is ${accepted.join(" or ")}; this one is ${from}.`,
    "extraction_not_accepted",
    [],
    { current_status: from, accepted_statuses: accepted },
  );
}

/** Where an engine that gave up on the file takes a document: only from where an extraction result is accepted. */
export function failedExtractionTarget(from: DocumentStatus): DocumentStatus {
  extractionTarget(from);
  return "extraction_failed";
}

export function frozenConflict(status: DocumentStatus): ConflictError {
  return new ConflictError(`The annotations of a document in status ${status} cannot change.`, "document_not_editable", [], {
    current_status: status,
  });
}
