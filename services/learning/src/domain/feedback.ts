import { NotFoundError, type OutboxEvents } from "@docex/kit";
import { z } from "zod";
import type { MemoryStore } from "../store/memory-store.js";
import type { AccessControl } from "./access.js";
import type { QueueView } from "./annotation-schema.js";
import type { DocumentDirectory } from "./document-directory.js";
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

const uuid = z.guid();
const isUuid = (text: string) => uuid.safeParse(text).success;

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
  constructor(private readonly deps: { documents: DocumentDirectory; access: AccessControl; store: MemoryStore; events: OutboxEvents }) {}

  async learn(actor: Actor, documentId: string, input: LearnInput): Promise<void> {
    const document = await this.editableDocument(actor, documentId);
    const queue = await this.queueOf(document.queueId, actor);
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
    await store.transaction(async (tx) => {
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
