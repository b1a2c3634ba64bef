import type { DocexEvent } from "@docex/events";
import { NotFoundError } from "@docex/kit/errors";
import type { FillRecord, MemoryStore } from "../store/memory-store.js";
import type { DocumentPort } from "./document-port.js";
import { planFill } from "./field-memory.js";
import type { Annotation, RememberedField } from "./records.js";
import { supplierIdentity, supplierIdsOf } from "./supplier.js";
import type { SupplierMemories } from "./supplier-memory.js";

/** The durable consumer's name; instances of learning share it, so each extraction is handled once. */
export const DOCUMENT_EXTRACTED_CONSUMER = "learning__document_extracted";

/** A plan refused as stale is made again on the newer version this many times in all. */
export const MAX_FILL_ATTEMPTS = 3;

type Outcome = Pick<FillRecord, "outcome" | "filledKeys" | "documentVersion" | "attempts">;

/**
 * When the AI's result for a document arrives (document.extracted), fills the fields it left empty from the
 * memory of the document's supplier, through the document service's ApplyDocumentChanges (source
 * "learning", values marked `source: "learned"`), based on the version the event names.
 *
 * Once per event: the event id is claimed in the same transaction that records the outcome, and the
 * document service is given idempotency keys derived from it, so a redelivery, even one after a crash
 * between the fill and the commit, fills nothing twice.
 */
export class LearnedFill {
  constructor(private readonly deps: { store: MemoryStore; memories: SupplierMemories; documents: DocumentPort }) {}

  async onExtracted(event: DocexEvent<"document.extracted">): Promise<void> {
    const { store, memories } = this.deps;
    const { document_id: documentId, queue_id: queueId, annotations, version } = event.data;
    await store.transaction(async (tx) => {
      if (!(await store.claim(tx, DOCUMENT_EXTRACTED_CONSUMER, event.id))) return;
      const identity = supplierIdentity(supplierIdsOf(annotations));
      const memory = await memories.recall(queueId, identity, tx);
      const outcome: Outcome = !identity
        ? { outcome: "no_supplier", filledKeys: [], documentVersion: version, attempts: 0 }
        : await this.fill(event, memory.fields);
      await store.recordFill(tx, { eventId: event.id, documentId, queueId, supplierKey: identity?.key ?? null, ...outcome });
    });
  }

  /**
   * Applies the plan made from the event's annotations. When a user (or another context) changed the
   * document first, the document service refuses the stale version; the plan is then made again from the
   * document as it is now, so what the user set stays and only fields still empty are filled.
   */
  private async fill(event: DocexEvent<"document.extracted">, memory: RememberedField[]): Promise<Outcome> {
    const ctx = event.request_id ? { requestId: event.request_id } : {};
    let base: { annotations: Annotation[]; version: number } = event.data;
    for (let attempt = 1; attempt <= MAX_FILL_ATTEMPTS; attempt += 1) {
      const plan = planFill(base.annotations, memory);
      if (plan.length === 0) return { outcome: "nothing_to_fill", filledKeys: [], documentVersion: base.version, attempts: attempt - 1 };
      let answer: Awaited<ReturnType<DocumentPort["applyLearnedValues"]>>;
      try {
        answer = await this.deps.documents.applyLearnedValues(
          {
            documentId: event.data.document_id,
            expectedVersion: base.version,
            annotations: plan,
            idempotencyKey: attempt === 1 ? event.id : `${event.id}:${attempt}`,
          },
          ctx,
        );
      } catch (error) {
        if (error instanceof NotFoundError)
          return { outcome: "document_not_found", filledKeys: [], documentVersion: null, attempts: attempt };
        throw error;
      }
      const filledKeys = plan.map((annotation) => annotation.key);
      if (answer.applied) return { outcome: "applied", filledKeys, documentVersion: answer.document.version, attempts: attempt };
      if (answer.reason !== "version_conflict")
        return { outcome: answer.reason || "refused", filledKeys: [], documentVersion: answer.document.version, attempts: attempt };
      base = answer.document;
    }
    return { outcome: "version_conflict", filledKeys: [], documentVersion: base.version, attempts: MAX_FILL_ATTEMPTS };
  }
}
