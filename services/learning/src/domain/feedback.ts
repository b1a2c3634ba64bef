import { typeProblem } from "@docex/annotations";
import type { DocexEvent } from "@docex/events";
import type { OutboxEvents } from "@docex/kit/bus";
import { NotFoundError } from "@docex/kit/errors";
import { isUuid } from "@docex/kit/ids";
import type { MemoryStore } from "../store/memory-store.js";
import type { AccessControl } from "./access.js";
import { isTable, type QueueView } from "./annotation-schema.js";
import type { DocumentPort } from "./document-port.js";
import { learnFeedback, relearnFeedback } from "./feedback-events.js";
import { CONFIRMATION_WINDOW } from "./field-memory.js";
import { checkLearnSet, firstTextOf, type LearnSet } from "./learn-set.js";
import type { Actor, DocumentView, SupplierIds, Visibility } from "./records.js";
import { checkRelearn, type RelearnInput } from "./relearn-instruction.js";
import { SUPPLIER_FIELDS, supplierIdentity, supplierIdsOf } from "./supplier.js";

export interface LearnInput {
  annotations: LearnSet;
  lineItemsVisibility: Visibility | null;
  taxDetailVisibility: Visibility | null;
}

interface RelearnScope {
  organizationId: string;
  queueId: string;
  documentId: string | null;
}

/** The durable consumer of document.status_changed; also the name under which handled event ids are claimed. */
export const VALIDATION_CONSUMER = "learning__document_validated";

/** Where a person's move out of manual validation goes: the document's values are confirmed then. */
const VALIDATED = new Set(["in_approval", "ready_to_export", "exported"]);

/**
 * A validated document's fields as a learn's annotation set: every field of the schema that is not a table, with the
 * values it holds; a value the schema's type cannot read (a date typed as free text) is left out rather than learned.
 */
function confirmedSet(schema: QueueView["schema"], annotations: DocumentView["annotations"]): LearnSet {
  const set: LearnSet = {};
  for (const annotation of annotations) {
    const field = schema.find((candidate) => candidate.key === annotation.key);
    if (!field || isTable(field)) continue;
    const texts = [annotation.value, ...(annotation.values ?? []).map((entry) => entry.value)].filter((text) => text.trim() !== "");
    const values = texts.filter((text) => typeProblem(field.type, text) === undefined).map((value) => ({ value }));
    if (values.length) set[annotation.key] = field.multi_value ? values : values.slice(0, 1);
  }
  return set;
}

/**
 * The supplier a learn is about: each identifier from the annotation set when the set has its field (what
 * the user confirmed), else from the document as it is stored.
 */
function supplierOfLearn(set: LearnSet, document: DocumentView): SupplierIds {
  const stored = supplierIdsOf(document.annotations);
  const pick = (key: string, fallback: string | null) => {
    const given = firstTextOf(set, key);
    return given === undefined ? fallback : given;
  };
  return {
    taxId: pick(SUPPLIER_FIELDS.taxId, stored.taxId),
    registerId: pick(SUPPLIER_FIELDS.registerId, stored.registerId),
    name: pick(SUPPLIER_FIELDS.name, stored.name),
  };
}

/**
 * Learn and relearn: checked against the queue's schema, recorded as feedback, folded into the queue's
 * supplier field memory, and published as learning.feedback, all in one transaction.
 */
export class FeedbackIntake {
  constructor(private readonly deps: { documents: DocumentPort; access: AccessControl; store: MemoryStore; events: OutboxEvents }) {}

  async learn(actor: Actor, documentId: string, input: LearnInput): Promise<void> {
    const document = await this.editableDocument(actor, documentId);
    const queue = await this.queueOf(document.queueId, actor);
    await this.remember(actor, document, queue, input);
  }

  /**
   * A person moved a document on from `to_validate` (to in_approval, ready_to_export or exported): what it holds now is
   * what they confirmed, so it is learned as a `/learn` of its fields would be, without one (the queue option
   * `learn_from_validation`, on by default). Once per event: the event id is claimed with the learn.
   */
  async learnFromValidation(event: DocexEvent<"document.status_changed">): Promise<"learned" | "skipped" | "duplicate"> {
    const { data } = event;
    if (data.previous_status !== "to_validate" || !VALIDATED.has(data.status) || data.user_id === null) return "skipped";
    const actor: Actor = { userId: data.user_id, requestId: event.request_id ?? event.id };
    const document = await this.deps.documents.findDocument(data.document_id, { requestId: actor.requestId });
    const queue = document && (await this.deps.documents.findQueue(document.queueId, { requestId: actor.requestId }));
    if (!document || !queue?.learnFromValidation) return "skipped";
    const annotations = confirmedSet(queue.schema, document.annotations);
    const learned = await this.remember(
      actor,
      document,
      queue,
      { annotations, lineItemsVisibility: null, taxDetailVisibility: null },
      event.id,
    );
    return learned ? "learned" : "duplicate";
  }

  /** Records a learn, folds it into the supplier's memory and publishes it; with `claim`, only once per that event id. */
  private async remember(actor: Actor, document: DocumentView, queue: QueueView, input: LearnInput, claim?: string): Promise<boolean> {
    const confirmed = checkLearnSet(queue.schema, input.annotations);
    const supplier = supplierOfLearn(input.annotations, document);
    const identity = supplierIdentity(supplier);
    const event = learnFeedback(
      {
        organizationId: document.organizationId,
        queueId: queue.id,
        documentId: document.id,
        supplier,
        actorUserId: actor.userId,
        requestId: actor.requestId,
      },
      input,
    );
    const { store, events } = this.deps;
    return store.transaction(async (tx) => {
      if (claim && !(await store.claim(tx, VALIDATION_CONSUMER, claim))) return false;
      await store.recordFeedback(tx, {
        id: event.id,
        kind: "learn",
        organizationId: document.organizationId,
        queueId: queue.id,
        documentId: document.id,
        userId: actor.userId,
        supplier,
        supplierKey: identity?.key ?? null,
        payload: event.data.payload,
      });
      // Without a supplier there is nothing to remember the values by; the trainer still gets the feedback.
      if (identity) {
        const key = { queueId: queue.id, supplierKey: identity.key };
        await store.confirm(tx, key, confirmed, event.id, CONFIRMATION_WINDOW);
        await store.setPreferences(tx, key, input);
      }
      await events.add(tx, event);
      return true;
    });
  }

  /** Relearn scoped to the queue the document is in. */
  async relearnForDocument(actor: Actor, documentId: string, input: RelearnInput): Promise<void> {
    const document = await this.editableDocument(actor, documentId);
    await this.relearn(actor, { organizationId: document.organizationId, queueId: document.queueId, documentId: document.id }, input);
  }

  async relearnForQueue(actor: Actor, queueRef: string, input: RelearnInput): Promise<void> {
    const notFound = () => new NotFoundError(`Queue ${queueRef} does not exist.`, "queue_not_found");
    const queue = await this.deps.documents.resolveQueue(queueRef, { requestId: actor.requestId });
    if (!queue) throw notFound();
    await this.deps.access.requireEditable(actor, { organizationId: queue.organizationId, queueId: queue.queueId }, notFound);
    await this.relearn(actor, { organizationId: queue.organizationId, queueId: queue.queueId, documentId: null }, input);
  }

  private async relearn(actor: Actor, scope: RelearnScope, input: RelearnInput): Promise<void> {
    const queue = await this.queueOf(scope.queueId, actor);
    const identity = checkRelearn(queue.schema, input);
    const event = relearnFeedback({ ...scope, supplier: input.supplier, actorUserId: actor.userId, requestId: actor.requestId }, input);
    const { store, events } = this.deps;
    await store.transaction(async (tx) => {
      await store.recordFeedback(tx, {
        id: event.id,
        kind: "relearn",
        ...scope,
        userId: actor.userId,
        supplier: input.supplier,
        supplierKey: identity.key,
        payload: event.data.payload,
      });
      const key = { queueId: scope.queueId, supplierKey: identity.key };
      if (input.value === null) await store.forget(tx, key, input.fieldKey);
      else await store.pin(tx, key, input.fieldKey, input.value, event.id);
      await events.add(tx, event);
    });
  }

  private async editableDocument(actor: Actor, documentId: string): Promise<DocumentView> {
    const notFound = () => new NotFoundError(`Document ${documentId} does not exist.`, "document_not_found");
    const document = isUuid(documentId) ? await this.deps.documents.findDocument(documentId, { requestId: actor.requestId }) : undefined;
    if (!document) throw notFound();
    await this.deps.access.requireEditable(
      actor,
      { organizationId: document.organizationId, queueId: document.queueId, approvers: document.approvers },
      notFound,
    );
    return document;
  }

  private async queueOf(queueId: string, actor: Actor): Promise<QueueView> {
    const queue = await this.deps.documents.findQueue(queueId, { requestId: actor.requestId });
    // The document service just named this queue; its absence is that service's inconsistency, not the caller's.
    if (!queue) throw new Error(`queue ${queueId} named by the document service does not exist`);
    return queue;
  }
}
