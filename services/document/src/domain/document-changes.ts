import { type FieldDefinition, locateKey } from "@docex/annotations";
import type { UnitOfWork } from "@docex/kit/db";
import { type FieldError, NotFoundError, ValidationError } from "@docex/kit/errors";
import type { DocumentStore } from "../store/document-store.js";
import type { HierarchyStore } from "../store/hierarchy-store.js";
import {
  type AnnotationFields,
  type CellReplacement,
  checkAnnotations,
  mergeAnnotations,
  replaceCells,
  sameAnnotations,
} from "./annotations.js";
import { withAssigned } from "./approval.js";
import { changedParts, type DocumentWriter } from "./document-writer.js";
import type {
  ApprovalStage,
  AutomationBlocker,
  DocumentMessage,
  DocumentStatus,
  RegisterOption,
  ServiceSource,
  StoredDocument,
} from "./records.js";
import { isFrozen, refuseMove } from "./status-machine.js";

/** A change another context asks for (gRPC ApplyDocumentChanges), in domain terms. */
export interface ServiceChange {
  documentId: string;
  /** The version the change was based on; 0 applies to whatever is current. */
  expectedVersion: number;
  source: ServiceSource;
  annotations: AnnotationFields[];
  cells: CellReplacement[];
  messages: Omit<DocumentMessage, "source">[];
  /**
   * True: the messages replace those this source added before. False: they are added. "notices": they replace
   * this source's notices only (a validator that failed leaves the last answer's messages in place).
   */
  replaceMessages: boolean | "notices";
  options: Record<string, RegisterOption[]>;
  status?: DocumentStatus;
  /** Non-empty: they become the document's approvers (with a route: they join its current stage). */
  approvers: string[];
  /** An approval route the document follows from stage `stage` on (0-based); absent leaves the route as it is. */
  approvalRoute?: { stages: ApprovalStage[]; stage: number };
  appliedRules: string[];
  /** Why extraction evaluation keeps the document for people, replacing what the last run said; absent leaves them. */
  automationBlockers?: AutomationBlocker[];
  idempotencyKey?: string;
}

export const REFUSAL_REASONS = [
  "version_conflict",
  "status_move_not_allowed",
  "blocked_by_error_messages",
  "document_not_editable",
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** How often a change is tried again on a newer version before it gives way to a busier document. */
const MAX_REREADS = 3;

export interface ChangeOutcome {
  applied: boolean;
  reason: RefusalReason | "";
  /** The document after the call, whether or not the change was applied. */
  document: StoredDocument;
}

/**
 * Changes from automation, learning and validation. They are based on a version of the document; when a
 * user changed it since, the change is refused (version_conflict) rather than overwriting the newer edit.
 * The whole change applies or none of it does.
 */
export class DocumentChanges {
  constructor(
    private readonly sql: UnitOfWork,
    private readonly documents: DocumentStore,
    private readonly hierarchy: HierarchyStore,
    private readonly writer: DocumentWriter,
  ) {}

  /**
   * Applies a change that was worked out from `basis` (a validation answer about its annotations). Others may
   * have changed the document since: when they left its annotations alone (a status move, approvers), the
   * change still fits and is applied to the newer version; when the annotations changed, it is about data that
   * is gone and stays refused (version_conflict), so it never overwrites a newer edit. `asyncCommit`: see
   * `UnitOfWork.transaction`; the edit whose answer this is was committed durably before.
   */
  async applyToAnnotationsOf(
    basis: StoredDocument,
    change: Omit<ServiceChange, "expectedVersion">,
    options: { requestId?: string; asyncCommit?: boolean } = {},
  ): Promise<ChangeOutcome> {
    // An answer that changes nothing of what it answered (the same warning again) needs no transaction.
    const queue = await this.hierarchy.findQueue({ id: basis.queueId });
    const planned = queue && this.nextState(queue.annotationSchema, basis, change);
    if (planned && "next" in planned && changedParts(basis, planned.next).length === 0) {
      return { applied: true, reason: "", document: basis };
    }
    let expectedVersion = basis.version;
    for (let reread = 0; ; reread++) {
      const outcome = await this.apply({ ...change, expectedVersion }, options.requestId, options.asyncCommit);
      const stillFits = sameAnnotations(outcome.document.annotations, basis.annotations);
      if (outcome.applied || outcome.reason !== "version_conflict" || !stillFits || reread === MAX_REREADS) return outcome;
      expectedVersion = outcome.document.version;
    }
  }

  async apply(change: ServiceChange, requestId?: string, asyncCommit = false): Promise<ChangeOutcome> {
    const notFound = () => new NotFoundError(`Document ${change.documentId} does not exist.`, "document_not_found");
    const meta = {
      source: change.source,
      userId: null,
      ...(requestId ? { requestId } : {}),
      ...(change.idempotencyKey ? { idempotencyKey: change.idempotencyKey } : {}),
      appliedRules: change.appliedRules,
    };

    return this.sql.transaction(
      async (tx): Promise<ChangeOutcome> => {
        const current = await this.documents.find(change.documentId, tx, true);
        if (!current) throw notFound();
        const queue = await this.hierarchy.findQueue({ id: current.queueId });
        if (!queue) throw notFound();
        if (change.idempotencyKey) {
          const earlier = await this.documents.findChange(tx, current.id, change.source, change.idempotencyKey);
          if (earlier) return { applied: earlier.applied, reason: earlier.reason as ChangeOutcome["reason"], document: current };
        }
        const refuse = async (reason: RefusalReason): Promise<ChangeOutcome> => {
          await this.writer.refuse(tx, current, meta, reason);
          return { applied: false, reason, document: current };
        };
        if (change.expectedVersion !== 0 && change.expectedVersion !== current.version) return refuse("version_conflict");
        if (change.automationBlockers && onlyBlockers(change)) {
          // Said of a document that people have already moved on, it would explain nothing.
          if (current.status !== "to_validate") return refuse("document_not_editable");
          const saved = await this.documents.setAutomationBlockers(tx, current.id, change.automationBlockers);
          return { applied: true, reason: "", document: saved ?? current };
        }
        const planned = this.nextState(queue.annotationSchema, current, change);
        if ("refusal" in planned) return refuse(planned.refusal);
        return { applied: true, reason: "", document: await this.writer.write(tx, current, planned.next, meta) };
      },
      { asyncCommit },
    );
  }

  /** The document after `change`, or why the change may not happen to it; a change that names what the document lacks throws a 400. */
  private nextState(
    schema: readonly FieldDefinition[],
    current: StoredDocument,
    change: Omit<ServiceChange, "expectedVersion">,
  ): { next: StoredDocument } | { refusal: RefusalReason } {
    const touchesAnnotations = change.annotations.length > 0 || change.cells.length > 0;
    if (touchesAnnotations && isFrozen(current.status)) return { refusal: "document_not_editable" };

    let annotations = current.annotations;
    if (change.annotations.length) {
      const checked = checkAnnotations(schema, change.annotations, "annotations_json");
      annotations = mergeAnnotations(schema, annotations, checked, (changed) => ({
        ...changed,
        source: changed.source ?? change.source,
      }));
    }
    if (change.cells.length) annotations = replaceCells(schema, annotations, change.cells, change.source, "cells_json");

    const optionErrors: FieldError[] = Object.keys(change.options)
      .filter((key) => !locateKey(schema, key))
      .map((key) => ({ path: `options_json.${key}`, message: `unknown field key "${key}"` }));
    if (optionErrors.length) throw new ValidationError("The options name fields the queue does not have.", optionErrors, "invalid_options");

    const replaced = (message: DocumentMessage) =>
      message.source === change.source && (change.replaceMessages === true || (change.replaceMessages === "notices" && message.notice));
    const kept = current.messages.filter((message) => !replaced(message));
    const messages = [...kept, ...change.messages.map((message) => ({ ...message, source: change.source }))];
    const { approvers, approval } = withAssigned(current, {
      approvers: change.approvers,
      ...(change.approvalRoute ? { route: change.approvalRoute } : {}),
    });

    let status = current.status;
    if (change.status !== undefined && change.status !== current.status) {
      const refusal = refuseMove(current.status, change.status, messages);
      if (refusal) return { refusal: refusal.reason };
      status = change.status;
    }
    return {
      next: {
        ...current,
        annotations,
        messages,
        options: { ...current.options, ...change.options },
        approvers,
        approval,
        status,
        automationBlockers: change.automationBlockers ?? current.automationBlockers,
      },
    };
  }
}

/** A change that only says why evaluation kept the document: written without a new version (see setAutomationBlockers). */
function onlyBlockers(change: ServiceChange): boolean {
  return (
    change.annotations.length === 0 &&
    change.cells.length === 0 &&
    change.messages.length === 0 &&
    !change.replaceMessages &&
    Object.keys(change.options).length === 0 &&
    change.status === undefined &&
    change.approvers.length === 0 &&
    change.approvalRoute === undefined
  );
}
