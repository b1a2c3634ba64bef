import { randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import { isApproverOnly } from "@docex/access";
import { DOCUMENT_STATUSES } from "@docex/events";
import type { OutboxEvents } from "@docex/kit/bus";
import { ForeignKeyViolationError, type Tx, type UnitOfWork } from "@docex/kit/db";
import { ConflictError, NotFoundError } from "@docex/kit/errors";
import type { FileStore } from "../files/file-store.js";
import type { DocumentSort, DocumentStore, ReadableScope } from "../store/document-store.js";
import type { HierarchyStore } from "../store/hierarchy-store.js";
import type { ValidationJobStore } from "../store/validation-job-store.js";
import { type AccessControl, type Actor, forbidden, type MembershipDirectory, readableQueue } from "./access.js";
import { type AnnotationFields, checkAnnotations, mergeAnnotations, sameAnnotations, sameContent } from "./annotations.js";
import {
  type ApprovalRouteSource,
  type AssignedApprovers,
  approvalRequired,
  type Decision,
  decide as decideApproval,
  mayDecideNow,
  mayOverrideApproval,
  restartedRoute,
  skipsApproval,
  withAssigned,
} from "./approval.js";
import type { AutomationSwitches } from "./automation-switches.js";
import type { DocumentChanges } from "./document-changes.js";
import { documentApproved, documentCreated } from "./document-events.js";
import type { DocumentWriter } from "./document-writer.js";
import type { DocumentView, DuplicateCheck } from "./duplicates.js";
import { entityRefOf, isUuid } from "./humanized-id.js";
import type { Quotas } from "./quotas.js";
import type { Annotation, DocumentMessage, DocumentStatus, Page, Queue, StoredDocument } from "./records.js";
import {
  extractionTarget,
  failedExtractionTarget,
  frozenConflict,
  isApprovalMove,
  isFrozen,
  moveConflict,
  refuseMove,
} from "./status-machine.js";
import { UserFieldRules } from "./user-schema.js";
import type { DocumentValidator } from "./validation.js";

export interface DocumentsDependencies {
  sql: UnitOfWork;
  documents: DocumentStore;
  hierarchy: HierarchyStore;
  writer: DocumentWriter;
  changes: DocumentChanges;
  access: AccessControl;
  membership: MembershipDirectory;
  validator: DocumentValidator;
  /** initial_document_validation: a job written with the extraction, and a nudge to its runner after the commit. */
  initialValidation: { jobs: ValidationJobStore; wake(): void };
  duplicates: DuplicateCheck;
  events: OutboxEvents;
  /** Where uploaded files are kept, under the document id. */
  files: FileStore;
  /** The organization's quotas, checked and charged in the upload's transaction. */
  quotas: Pick<Quotas, "charge">;
  /** Automation's approval rules, asked for the route of a document a person moves to in_approval. */
  approvalRoutes: ApprovalRouteSource;
  /** The projection of automation's switches: a queue with `automation_rules` off has no route to ask for. */
  switches: AutomationSwitches;
}

/** A received file, checked (size, type) and ready to be kept. */
export interface IncomingFile {
  size: number;
  sha256: string;
  contentType: string;
  /** Its bytes, to keep under the new document's id; absent when they are kept there already (`UploadInput.id`). */
  open?(): Readable;
}

export interface UploadInput {
  /** The new document's id, given when its file was streamed into the store under it before (a streamed upload). */
  id?: string;
  fileName: string;
  /** The file, when the client sent one: kept in the file store, its SHA-256 finds duplicates. */
  file: IncomingFile | null;
  annotations: AnnotationFields[];
  confidence: number | null;
}

export interface ExtractionInput {
  annotations: AnnotationFields[];
  confidence: number | null;
}

export interface DocumentListQuery {
  /** Absent: every status but `deleted` (every status with `updatedSince`). */
  statuses?: DocumentStatus[];
  /** UUID or humanized id of a queue the caller may read (else 404). */
  queueRef?: string;
  /** UUID or humanized id of a workspace the caller may read (else 404). */
  workspaceRef?: string;
  /** A part of the invoice number, the supplier's name or tax id, or the file name; any case. */
  q?: string;
  createdFrom?: Date;
  /** Exclusive. */
  createdBefore?: Date;
  /** Documents changed at or after this instant. */
  updatedSince?: Date;
  /** Only documents whose approvers include the caller. */
  assignedToMe?: boolean;
  /** Absent: `-created_at`, or `updated_at` with `updatedSince`. */
  sort?: DocumentSort;
  page: number;
  pageSize: number;
}

/** Unless asked for, deleted documents stay out of lists; they can still be read by id. */
const LISTED_BY_DEFAULT = DOCUMENT_STATUSES.filter((status) => status !== "deleted");

/** How often a move to in_approval asks for the route again when the annotations changed while it was being worked out. */
const ROUTE_ATTEMPTS = 3;

const documentNotFound = (id: string) => () => new NotFoundError(`Document ${id} does not exist.`, "document_not_found");

/** What users do with documents through the API. Every answer is the document as that user may see it. */
export class Documents {
  constructor(private readonly deps: DocumentsDependencies) {}

  private readableQueue(actor: Actor, ref: string) {
    return readableQueue({ queues: this.deps.hierarchy, access: this.deps.access }, actor, ref);
  }

  private async readableDocument(actor: Actor, id: string) {
    const notFound = documentNotFound(id);
    const document = isUuid(id) ? await this.deps.documents.find(id.toLowerCase()) : undefined;
    if (!document) throw notFound();
    const grant = await this.deps.access.requireDocumentReadable(actor, document, notFound);
    return { document, grant, notFound };
  }

  /** A document the actor may read (else 404) and edit (else 403). */
  private async editableDocument(actor: Actor, id: string) {
    const readable = await this.readableDocument(actor, id);
    const { document, notFound } = readable;
    await this.deps.access.require(
      actor,
      "document.edit",
      { organizationId: document.organizationId, queueId: document.queueId },
      notFound,
    );
    return readable;
  }

  private async queueOf(document: StoredDocument): Promise<Queue> {
    const queue = await this.deps.hierarchy.findQueue({ id: document.queueId });
    if (!queue) throw new Error(`queue ${document.queueId} of document ${document.id} is missing`);
    return queue;
  }

  private async fieldRules(actor: Actor, organizationId: string, queueId: string): Promise<UserFieldRules> {
    const rules = await this.deps.membership.fieldRulesOf(
      { userId: actor.userId, organizationId, queueId },
      { requestId: actor.requestId },
    );
    return rules.length ? new UserFieldRules(rules) : UserFieldRules.none;
  }

  private async lockedDocument(tx: Tx, id: string, notFound: () => NotFoundError): Promise<StoredDocument> {
    const document = await this.deps.documents.find(id, tx, true);
    if (!document) throw notFound();
    return document;
  }

  /** The documents as `actor` sees them: their user schema applied, with the duplicates they may read. */
  private async view(actor: Actor, rules: UserFieldRules, documents: StoredDocument[]): Promise<DocumentView[]> {
    return (await this.deps.duplicates.view(actor, documents)).map((document) => ({ ...document, ...rules.visibleDocument(document) }));
  }

  /**
   * A new document in `received`, announced as document.created in the same transaction. With the file's bytes
   * its SHA-256 is kept; a queue with duplicate_file_rejection refuses (409) a file the organization already has.
   */
  async upload(actor: Actor, queueRef: string, input: UploadInput): Promise<DocumentView> {
    const { queue, rules } = await this.uploadTarget(actor, queueRef);
    const annotations = checkAnnotations(queue.annotationSchema, input.annotations);
    rules.assertMayWrite([], annotations);
    const file = input.file;
    const fileSha256 = file?.sha256 ?? null;
    const id = input.id ?? randomUUID();
    // The bytes first, under the new id: the document row (in one transaction with its event) only ever names a
    // file that is complete. Whatever stops the row from being written removes them again.
    if (file?.open) await this.deps.files.put(id, file.open(), file.size);
    const document = await this.deps.sql
      .transaction(async (tx) => {
        if (fileSha256) {
          await this.deps.documents.lockFile(tx, queue.organizationId, fileSha256);
          if (queue.duplicateFileRejection) await this.deps.duplicates.refuseDuplicateFile(tx, actor, queue.organizationId, fileSha256);
        }
        await this.deps.quotas.charge(tx, queue.organizationId, file?.size ?? 0);
        const inserted = await this.deps.documents.insert(tx, {
          id,
          queueId: queue.id,
          workspaceId: queue.workspaceId,
          organizationId: queue.organizationId,
          fileName: input.fileName,
          fileSha256,
          fileContentType: file?.contentType ?? null,
          fileSize: file?.size ?? null,
          status: "received",
          annotations: mergeAnnotations(queue.annotationSchema, [], annotations),
          messages: [],
          options: {},
          approvers: [],
          approval: null,
          confidence: input.confidence,
        });
        await this.deps.events.add(tx, documentCreated(inserted, { userId: actor.userId, requestId: actor.requestId }));
        return inserted;
      })
      .catch(async (error: unknown) => {
        if (file) await this.deps.files.delete(id).catch(() => undefined);
        // The queue was deleted after it was read (another replica's cache had not heard yet).
        if (error instanceof ForeignKeyViolationError) throw new NotFoundError(`Queue ${queueRef} does not exist.`, "queue_not_found");
        throw error;
      });
    return (await this.view(actor, rules, [document]))[0]!;
  }

  /** The queue an upload goes to, once `actor` may add documents to it: checked before a byte of the file is read. */
  async uploadTarget(actor: Actor, queueRef: string): Promise<{ queue: Queue; rules: UserFieldRules }> {
    const { queue, notFound } = await this.readableQueue(actor, queueRef);
    const scope = { organizationId: queue.organizationId, queueId: queue.id };
    await this.deps.access.require(actor, "document.edit", scope, notFound);
    return { queue, rules: await this.fieldRules(actor, queue.organizationId, queue.id) };
  }

  /**
   * The extraction engine's result: the AI's annotations replace those of the keys they name (values given at
   * upload for other keys stay), and the document moves on to validation; initial_document_validation is
   * scheduled in the same transaction and runs after it. The user schema does not restrict the engine; what it
   * answers with is filtered for the caller like any read.
   */
  async recordExtraction(actor: Actor, documentId: string, input: ExtractionInput) {
    const { document, notFound } = await this.editableDocument(actor, documentId);
    const outcome = await this.applyExtraction(document, input, { userId: actor.userId, requestId: actor.requestId }, notFound);
    if (outcome.refusal) throw outcome.refusal;
    const saved = outcome.document;
    return (await this.view(actor, await this.fieldRules(actor, saved.organizationId, saved.queueId), [saved]))[0]!;
  }

  /**
   * The built-in engine's result (gRPC RecordExtraction), recorded exactly as `recordExtraction` does but on behalf of
   * no user, with the engine's own messages added. A repeated idempotency key answers "already_recorded", a document
   * that no longer accepts an extraction (deleted meanwhile, say) "status_move_not_allowed"; neither changes anything.
   */
  async recordEngineExtraction(
    organizationId: string,
    documentId: string,
    input: ExtractionInput & { messages: Omit<DocumentMessage, "source">[]; idempotencyKey: string; failed?: boolean },
    requestId?: string,
  ): Promise<{ applied: boolean; reason: "" | "already_recorded" | "status_move_not_allowed" }> {
    const notFound = documentNotFound(documentId);
    const document = isUuid(documentId) ? await this.deps.documents.find(documentId.toLowerCase()) : undefined;
    if (!document || document.organizationId !== organizationId.toLowerCase()) throw notFound();
    const outcome = await this.applyExtraction(document, input, { userId: null, ...(requestId ? { requestId } : {}) }, notFound, {
      messages: input.messages,
      ...(input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {}),
      ...(input.failed ? { failed: true as const } : {}),
    });
    if (outcome.repeated) return { applied: false, reason: "already_recorded" };
    if (outcome.refusal) return { applied: false, reason: "status_move_not_allowed" };
    return { applied: true, reason: "" };
  }

  private async applyExtraction(
    document: StoredDocument,
    input: ExtractionInput,
    cause: { userId: string | null; requestId?: string },
    notFound: () => NotFoundError,
    engine?: { messages: Omit<DocumentMessage, "source">[]; idempotencyKey?: string; failed?: true },
  ): Promise<{ document: StoredDocument; refusal?: ConflictError; repeated?: true }> {
    const queue = await this.queueOf(document);
    // An engine that gave up on the file leaves the annotations as they are: extraction_failed with its messages.
    const extracted = engine?.failed
      ? []
      : checkAnnotations(queue.annotationSchema, input.annotations).map((annotation) => ({
          ...annotation,
          source: annotation.source ?? "ai",
        }));
    const meta = {
      source: "ai" as const,
      ...cause,
      // No document.extracted for a file the engine gave up on: nothing was extracted for automation to act on.
      extraction: !engine?.failed,
      ...(engine?.idempotencyKey ? { idempotencyKey: engine.idempotencyKey } : {}),
    };
    const outcome = await this.deps.sql.transaction(async (tx) => {
      const current = await this.lockedDocument(tx, document.id, notFound);
      if (engine?.idempotencyKey && (await this.deps.documents.findChange(tx, current.id, "ai", engine.idempotencyKey))) {
        return { document: current, repeated: true as const };
      }
      let status: DocumentStatus;
      try {
        status = engine?.failed ? failedExtractionTarget(current.status) : extractionTarget(current.status);
      } catch (error) {
        if (!(error instanceof ConflictError) || !engine) throw error;
        await this.deps.writer.refuse(tx, current, meta, "status_move_not_allowed");
        return { document: current, refusal: error };
      }
      const annotations = mergeAnnotations(queue.annotationSchema, current.annotations, extracted);
      const messages = engine
        ? [...current.messages, ...engine.messages.map((message) => ({ ...message, source: "ai" as const }))]
        : current.messages;
      if (!engine?.failed) await this.deps.initialValidation.jobs.schedule(tx, current.id);
      const confidence = engine?.failed ? current.confidence : input.confidence;
      // A new reading is evaluated anew: what kept the last one back no longer applies.
      const automationBlockers = engine?.failed ? current.automationBlockers : [];
      const next = { ...current, annotations, messages, confidence, status, automationBlockers };
      const saved = await this.deps.writer.write(tx, current, next, meta);
      return { document: saved };
    });
    if (!outcome.repeated && !("refusal" in outcome)) this.deps.initialValidation.wake();
    return outcome;
  }

  /** The document if `actor` may read it, for its kept file: the same rule as reading the document. */
  async readable(actor: Actor, documentId: string): Promise<StoredDocument> {
    return (await this.readableDocument(actor, documentId)).document;
  }

  async get(actor: Actor, documentId: string): Promise<DocumentView> {
    const { document } = await this.readableDocument(actor, documentId);
    return (await this.view(actor, await this.fieldRules(actor, document.organizationId, document.queueId), [document]))[0]!;
  }

  /** The documents of one queue the caller may read, filtered and sorted as `query` says. */
  async list(actor: Actor, queueRef: string, query: DocumentListQuery): Promise<Page<DocumentView>> {
    const { queue, grant } = await this.readableQueue(actor, queueRef);
    const scope: ReadableScope = {
      organizationId: queue.organizationId,
      queueIds: [queue.id],
      ...(isApproverOnly(grant) ? { approverId: actor.userId } : {}),
    };
    return this.listIn(actor, [scope], { ...query, queueId: queue.id });
  }

  /**
   * Every document the caller may read, across the queues of every organization they belong to: for each, the
   * queues of their membership (`queue_ids`), and for an approver only what is assigned to them.
   */
  async listReadable(actor: Actor, query: DocumentListQuery): Promise<Page<DocumentView>> {
    const ctx = { requestId: actor.requestId };
    const organizations = await this.deps.membership.organizationsOf(actor.userId, ctx);
    const reaches = await Promise.all(
      organizations.map(async (organization) => ({
        organizationId: organization.id,
        reach: await this.deps.membership.reachOf(actor.userId, organization.id, ctx),
      })),
    );
    const scopes: ReadableScope[] = reaches.flatMap(({ organizationId, reach }) =>
      reach ? [{ organizationId, queueIds: reach.queueIds, ...(isApproverOnly(reach) ? { approverId: actor.userId } : {}) }] : [],
    );
    return this.listIn(actor, scopes, query);
  }

  /** How many documents of the queue are in each status, every status named (0 included); an approver counts what is assigned to them. */
  async countByStatus(actor: Actor, queueRef: string): Promise<Record<DocumentStatus, number>> {
    const { queue, grant } = await this.readableQueue(actor, queueRef);
    const counted = await this.deps.documents.countByStatus(queue.id, isApproverOnly(grant) ? actor.userId : undefined);
    return Object.fromEntries(DOCUMENT_STATUSES.map((status) => [status, counted.get(status) ?? 0])) as Record<DocumentStatus, number>;
  }

  private async listIn(
    actor: Actor,
    scopes: ReadableScope[],
    query: DocumentListQuery & { queueId?: string },
  ): Promise<Page<DocumentView>> {
    const queueId = query.queueId ?? (query.queueRef ? (await this.readableQueue(actor, query.queueRef)).queue.id : undefined);
    const workspaceId = query.workspaceRef ? (await this.readableWorkspace(actor, query.workspaceRef)).id : undefined;
    const statuses = query.statuses?.length ? query.statuses : query.updatedSince ? [...DOCUMENT_STATUSES] : LISTED_BY_DEFAULT;
    const { items, total } = await this.deps.documents.list({
      scopes,
      statuses,
      ...(queueId ? { queueId } : {}),
      ...(workspaceId ? { workspaceId } : {}),
      ...(query.q ? { q: query.q.toLowerCase() } : {}),
      ...(query.createdFrom ? { createdFrom: query.createdFrom } : {}),
      ...(query.createdBefore ? { createdBefore: query.createdBefore } : {}),
      ...(query.updatedSince ? { updatedSince: query.updatedSince } : {}),
      ...(query.assignedToMe ? { approverId: actor.userId } : {}),
      sort: query.sort ?? (query.updatedSince ? "updated_at" : "-created_at"),
      offset: (query.page - 1) * query.pageSize,
      limit: query.pageSize,
    });
    return { items: await this.viewAcrossQueues(actor, items), page: query.page, pageSize: query.pageSize, total };
  }

  private async readableWorkspace(actor: Actor, ref: string) {
    const notFound = () => new NotFoundError(`Workspace ${ref} does not exist.`, "workspace_not_found");
    const workspace = await this.deps.hierarchy.findWorkspace(entityRefOf(ref));
    if (!workspace) throw notFound();
    await this.deps.access.requireReadable(actor, { organizationId: workspace.organizationId }, notFound);
    return workspace;
  }

  /** Documents of several queues, each as the caller's field rules of its queue show it. */
  private async viewAcrossQueues(actor: Actor, documents: StoredDocument[]): Promise<DocumentView[]> {
    const queues = new Map(documents.map((document) => [document.queueId, document.organizationId]));
    const rules = new Map(
      await Promise.all(
        [...queues].map(async ([queueId, organizationId]) => [queueId, await this.fieldRules(actor, organizationId, queueId)] as const),
      ),
    );
    return (await this.deps.duplicates.view(actor, documents)).map((document) => ({
      ...document,
      ...(rules.get(document.queueId) ?? UserFieldRules.none).visibleDocument(document),
    }));
  }

  /**
   * A user's edit: the annotations sent replace those of their keys; keys not sent stay as they are. A changed
   * value becomes `source: "user"` and loses the AI's confidence; a value sent back unchanged keeps both.
   * Then document_validation (the validator seam) may answer with changes, applied on top of this edit, within the
   * validation budget counted from `receivedAt` (when the request arrived; epoch ms).
   */
  async editAnnotations(actor: Actor, documentId: string, input: AnnotationFields[], receivedAt = Date.now()): Promise<DocumentView> {
    const { document, notFound } = await this.editableDocument(actor, documentId);
    const rules = await this.fieldRules(actor, document.organizationId, document.queueId);
    const queue = await this.queueOf(document);
    const changes = checkAnnotations(queue.annotationSchema, input);

    const { saved, previousAnnotations, changed } = await this.deps.sql.transaction(async (tx) => {
      const current = await this.lockedDocument(tx, document.id, notFound);
      if (isFrozen(current.status)) throw frozenConflict(current.status);
      rules.assertMayWrite(current.annotations, changes);
      const complete = rules.keepHiddenCells(current.annotations, changes);
      const annotations = mergeAnnotations(queue.annotationSchema, current.annotations, complete, userStamp);
      const saved = await this.deps.writer.write(
        tx,
        current,
        { ...current, annotations },
        {
          source: "user",
          userId: actor.userId,
          requestId: actor.requestId,
        },
      );
      return { saved, previousAnnotations: current.annotations, changed: saved.version !== current.version };
    });
    if (!changed) return (await this.view(actor, rules, [saved]))[0]!;

    const answer = await this.deps.validator.validateEdit({
      document: saved,
      previousAnnotations,
      annotationSchema: queue.annotationSchema,
      userId: actor.userId,
      requestId: actor.requestId,
      receivedAt,
    });
    if (!answer) return (await this.view(actor, rules, [saved]))[0]!;
    // The edit itself is durable already: the answer's commit adds no second flush to the request.
    const outcome = await this.deps.changes.applyToAnnotationsOf(
      saved,
      { ...answer, documentId: saved.id },
      { requestId: actor.requestId, asyncCommit: true },
    );
    return (await this.view(actor, rules, [outcome.document]))[0]!;
  }

  /**
   * A move of the status table. Who may edit the document may make the moves of the table, except past an approval
   * route: a move to `ready_to_export` of a document in approval (or in validation with approvers) is their approval
   * when they are an approver of the current stage, an override for an owner or a supervisor (their move in the audit
   * log), and 403 `approval_required` for anyone else. A move to `in_approval` assigns the route the queue's approval
   * rules give the document as it is now (automation's PlanApprovalRoute), as a run on its extraction would; sending a
   * document in approval back to validation restarts its route. An approver's move of a document in approval to
   * `ready_to_export` or `rejected` is their approval or rejection of its current stage (`decide`).
   */
  async changeStatus(actor: Actor, documentId: string, target: DocumentStatus): Promise<DocumentView> {
    const { document, grant, notFound } = await this.readableDocument(actor, documentId);
    const scope = { organizationId: document.organizationId, queueId: document.queueId };
    if (!(await this.deps.access.allows(actor, "document.edit", scope))) {
      if (isApprovalMove(document.status, target)) return this.decide(actor, documentId, target === "rejected" ? "rejected" : "approved");
      throw forbidden("document.edit", grant.role);
    }
    const early = refuseMove(document.status, target, document.messages);
    if (early) throw moveConflict(early);
    const overrides = mayOverrideApproval(grant.role);
    if (skipsApproval(document, target) && !overrides) {
      if (mayDecideNow(document, actor.userId)) return this.decide(actor, documentId, "approved");
      throw approvalRequired(document);
    }

    const queue = target === "in_approval" ? await this.queueOf(document) : undefined;
    let basis = document;
    for (let attempt = 1; ; attempt++) {
      const assigned = queue ? await this.approversFor(queue, basis, actor) : undefined;
      const outcome = await this.deps.sql.transaction(async (tx) => {
        const current = await this.lockedDocument(tx, document.id, notFound);
        const refusal = refuseMove(current.status, target, current.messages);
        if (refusal) throw moveConflict(refusal);
        if (skipsApproval(current, target) && !overrides) throw approvalRequired(current);
        // The route was worked out on annotations someone has changed since: it may not be theirs any more.
        if (assigned && !sameAnnotations(current.annotations, basis.annotations)) return { stale: current };
        const route = target === "to_validate" ? restartedRoute(current) : assigned ? withAssigned(current, assigned) : {};
        const saved = await this.deps.writer.write(
          tx,
          current,
          { ...current, ...route, status: target },
          {
            source: "user",
            userId: actor.userId,
            requestId: actor.requestId,
          },
        );
        return { saved };
      });
      const saved = outcome.saved;
      if (saved) {
        return (await this.view(actor, await this.fieldRules(actor, saved.organizationId, saved.queueId), [saved]))[0]!;
      }
      if (attempt === ROUTE_ATTEMPTS) {
        throw new ConflictError(
          "The document's annotations kept changing while its approval route was worked out; try again.",
          "document_changed",
        );
      }
      basis = outcome.stale ?? basis;
    }
  }

  /** The approvers the queue's approval rules give `document`; none to ask for while the queue's rules are switched off. */
  private async approversFor(queue: Queue, document: StoredDocument, actor: Actor): Promise<AssignedApprovers> {
    const switches = await this.deps.switches.of(queue.id);
    if (switches.automationRules !== "enabled") return { approvers: [] };
    return this.deps.approvalRoutes.approversFor(queue, document, { requestId: actor.requestId });
  }

  /**
   * `POST /documents/{id}/approve` and `/reject`: an approver of the document's current stage decides, once per
   * stage (see `decide` in approval.ts). Publishes `document.approved` for an approval, and the status change when
   * the route ends.
   */
  async decide(actor: Actor, documentId: string, decision: Decision): Promise<DocumentView> {
    const { document, grant, notFound } = await this.readableDocument(actor, documentId);
    const scope = { organizationId: document.organizationId, queueId: document.queueId };
    if (!(await this.deps.access.allows(actor, "document.approve", scope))) throw forbidden("document.approve", grant.role);
    const cause = { userId: actor.userId, requestId: actor.requestId };
    const saved = await this.deps.sql.transaction(async (tx) => {
      const current = await this.lockedDocument(tx, document.id, notFound);
      const outcome = decideApproval(current, actor.userId, decision, new Date());
      const saved = await this.deps.writer.write(tx, current, outcome.next, { source: "user", ...cause });
      if (outcome.approval) await this.deps.events.add(tx, documentApproved(saved, actor.userId, outcome.approval, cause));
      return saved;
    });
    return (await this.view(actor, await this.fieldRules(actor, saved.organizationId, saved.queueId), [saved]))[0]!;
  }
}

function userStamp(changed: Annotation, previous: Annotation | undefined): Annotation {
  if (previous && sameContent(changed, previous)) {
    // The same text pointed at on the page (click-to-fill): the place is what the person gave.
    const { position } = changed;
    return position && JSON.stringify(position) !== JSON.stringify(previous.position) ? { ...previous, position } : previous;
  }
  const { confidence: _aiConfidence, ...rest } = changed;
  return { ...rest, source: "user" };
}
