import type { FieldDefinition } from "@docex/annotations";
import { inSpan, type Span } from "@docex/kit/tracing";
import type { CellReplacement } from "./annotations.js";
import type { ServiceChange } from "./document-changes.js";
import type { Annotation, DocumentMessage, RegisterOption, StoredDocument } from "./records.js";
import { changeFromAnswer, noticeChange } from "./validation-answer.js";

export const VALIDATION_TYPES = ["document_validation", "initial_document_validation"] as const;
export type ValidationType = (typeof VALIDATION_TYPES)[number];

/** An external validator's answer, normalised by the webhook service from either form of the spec. */
export interface ValidationAnswer {
  replacements: Array<{ key: string; value: string }>;
  messages: Array<Pick<DocumentMessage, "key" | "message" | "severity">>;
  cells: CellReplacement[];
  options: Record<string, RegisterOption[]>;
}

export const FAILURE_POLICIES = ["allow", "block"] as const;
/** A validation link's answer to an unavailable validator: a warning (allow) or an error (block). */
export type FailurePolicy = (typeof FAILURE_POLICIES)[number];

/** Where a document's validator may sit: the document itself, its queue, workspace or organization. */
export interface DocumentScope {
  documentId: string;
  queueId: string;
  workspaceId: string;
  organizationId: string;
}

/** Where a validation webhook of the deprecated API may sit. */
export const ENTITY_TYPES = ["document", "queue", "workspace", "organization"] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

/** The validator that applies to a document: the target the webhook service calls, and what a failure comes to. */
export interface AppliedValidator {
  targetId: string;
  failurePolicy: FailurePolicy;
}

/**
 * Everything that may validate a queue's documents, kept with the cached queue (HierarchyStore): its links, and the
 * validation webhooks of the deprecated API of its documents, itself, its workspace and its organization.
 */
export interface QueueValidators {
  links: Map<ValidationType, AppliedValidator>;
  /** Oldest first. */
  webhooks: Array<{ webhookId: string; type: ValidationType; entityType: EntityType; entityId: string }>;
}

const NEAREST_FIRST: readonly EntityType[] = ["document", "queue", "workspace", "organization"];

/**
 * Which validator of the type applies to the document: the queue's link, else the nearest validation webhook of the
 * deprecated API (document, queue, workspace, organization; the oldest at a level), under `allow`; none: undefined.
 */
export function validatorOf(validators: QueueValidators, type: ValidationType, scope: DocumentScope): AppliedValidator | undefined {
  const link = validators.links.get(type);
  if (link) return link;
  const idAt: Record<EntityType, string> = {
    document: scope.documentId,
    queue: scope.queueId,
    workspace: scope.workspaceId,
    organization: scope.organizationId,
  };
  for (const level of NEAREST_FIRST) {
    const webhook = validators.webhooks.find(
      (candidate) => candidate.type === type && candidate.entityType === level && candidate.entityId === idAt[level],
    );
    if (webhook) return { targetId: webhook.webhookId, failurePolicy: "allow" };
  }
  return undefined;
}

/** The validator that applies to a document, from its queue's cached record (no query once the queue is cached). */
export interface KnownValidators {
  of(type: ValidationType, scope: DocumentScope): Promise<AppliedValidator | undefined>;
}

/** What a Validate call came to. Receiver trouble is an outcome with a reason that can be shown to the user. */
export type ValidationResult =
  | { outcome: "ok"; answer: ValidationAnswer }
  | { outcome: "no_validator" }
  | { outcome: "unavailable" | "rejected"; reason: string; failurePolicy?: FailurePolicy };

export interface ValidationCall {
  type: ValidationType;
  document: StoredDocument;
  previousAnnotations: Annotation[];
  /** Null for initial_document_validation. */
  userId: string | null;
  /** The validation's budget: what the receiver may take at most, and what an unavailability's reason names. */
  timeoutMs: number;
  /** What is left of it for this call (the request's own work came first); the call's deadline. Default: timeoutMs. */
  deadlineMs?: number;
  requestId?: string;
}

/** The webhook service's Validate as the domain sees it (src/clients/webhook.ts). It never throws. */
export interface ExternalValidator {
  validate(call: ValidationCall): Promise<ValidationResult>;
}

/** A change of the validation source, before it is tied to a document and a version. */
export type ValidationChange = Omit<ServiceChange, "documentId" | "expectedVersion">;

/** A user's edit, saved and committed, as document_validation needs it. */
export interface SavedEdit {
  document: StoredDocument;
  previousAnnotations: Annotation[];
  /** The queue's schema: the answer is checked against it. */
  annotationSchema: FieldDefinition[];
  userId: string;
  requestId: string;
  /** When the edit's request arrived (epoch ms): the validation budget counts from here. */
  receivedAt: number;
}

/**
 * What the budget keeps back for applying the answer (one short transaction) and answering, so that the whole
 * request, not only the receiver's part, stays within it.
 */
export const ANSWER_RESERVE_MS = 15;

/**
 * The seam for `document_validation`. After a user's PATCH of annotations is committed, the validator may
 * return the changes the validation answer asks for (replacement values, cells, messages with
 * replace_messages, options, or a warning that validation failed); they are applied to the saved version, or
 * to a newer one with the same annotations, so they never overwrite a newer edit. It answers within the
 * request's budget and does not throw for an unavailable receiver.
 */
export interface DocumentValidator {
  validateEdit(edit: SavedEdit): Promise<ValidationChange | undefined>;
}

/**
 * document_validation through the webhook service. DOCUMENT_VALIDATION_TIMEOUT_MS is the budget of the whole
 * request, counted from its arrival: the validator gets what the work before it left, less `ANSWER_RESERVE_MS`.
 */
export class EditValidation implements DocumentValidator {
  constructor(
    private readonly external: ExternalValidator,
    private readonly budgetMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async validateEdit(edit: SavedEdit): Promise<ValidationChange | undefined> {
    const remainingMs = edit.receivedAt + this.budgetMs - ANSWER_RESERVE_MS - this.now();
    // The span says where the budget went: what the edit's own work left of it, and what the validator made of that.
    return inSpan(
      "document_validation",
      { attributes: { "docex.validation.budget_ms": this.budgetMs, "docex.validation.remaining_ms": Math.floor(remainingMs) } },
      (span) => this.validateWithin(edit, remainingMs, span),
    );
  }

  private async validateWithin(edit: SavedEdit, remainingMs: number, span: Span): Promise<ValidationChange | undefined> {
    const result = await this.external.validate({
      type: "document_validation",
      document: edit.document,
      previousAnnotations: edit.previousAnnotations,
      userId: edit.userId,
      timeoutMs: this.budgetMs,
      deadlineMs: Math.min(this.budgetMs, Math.floor(remainingMs)),
      requestId: edit.requestId,
    });
    span.setAttributes({
      "docex.validation.outcome": result.outcome,
      ...(result.outcome === "unavailable" || result.outcome === "rejected" ? { "docex.validation.reason": result.reason } : {}),
    });
    return validationChange(edit.annotationSchema, edit.document, result, {
      unavailable: (reason) => `External validation was unavailable (${reason}); the edit was saved without it.`,
      rejected: (reason) => `External validation's answer was rejected (${reason}); the edit was saved without it.`,
    });
  }
}

/**
 * The change a result asks for: an answer's values, cells, options and messages (replacing the previous
 * answer's); a warning when the validator failed (replacing the previous warning, keeping the previous answer's
 * messages, so an `error` stays until a validator says otherwise) — an error instead where the link's failure
 * policy is `block`; nothing when there is no validator.
 */
export function validationChange(
  schema: readonly FieldDefinition[],
  document: StoredDocument,
  result: ValidationResult,
  wording: { unavailable: (reason: string) => string; rejected: (reason: string) => string },
): ValidationChange | undefined {
  switch (result.outcome) {
    case "no_validator":
      return undefined;
    case "ok":
      return changeFromAnswer(schema, document, result.answer);
    case "unavailable":
    case "rejected": {
      const text = (result.outcome === "unavailable" ? wording.unavailable : wording.rejected)(result.reason);
      // The link's failure policy `block`: no export until a validator has answered (an `error` blocks the move).
      if (result.failurePolicy === "block") {
        return noticeChange(`${text} The queue requires external validation: the document cannot be exported until it succeeds.`, "error");
      }
      return noticeChange(text);
    }
  }
}
