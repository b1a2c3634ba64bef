import { type Annotation, type SchemaField, supplierIdentity, supplierIdsOf } from "@docex/annotations";
import type { DocexEvent } from "@docex/events";
import type { Logger } from "@docex/kit/logger";
import type { PageWord } from "../engine/types.js";
import type { LayoutStore, LearnedPlace } from "../store/layout-store.js";
import type { PageStore } from "../store/page-store.js";
import type { DocumentPort } from "./document-port.js";
import { LAYOUT_SOURCE, type PageWords, placesOf, readPlaces } from "./layout-memory.js";

/** The durable consumer of document.status_changed whose moves teach the supplier layouts. */
export const DOCUMENT_VALIDATED_CONSUMER = "extraction__document_validated";

/** Sources of values read exactly, which a layout's reading never replaces. */
const EXACT_SOURCES = new Set(["builtin:einvoice", "builtin:qr"]);

/** Where a person's move out of manual validation goes: the document's values are confirmed then. */
const VALIDATED = new Set(["in_approval", "ready_to_export", "exported"]);

/** The pages' words the pages API keeps for a document, by page (pages never read have none). */
async function wordsOf(pages: Pick<PageStore, "list" | "words">, documentId: string): Promise<Map<number, PageWord[]>> {
  const words = new Map<number, PageWord[]>();
  const list = await pages.list(documentId);
  for (const page of list?.pages ?? []) {
    const found = await pages.words(documentId, page.page);
    if (found?.length) words.set(page.page, found);
  }
  return words;
}

/**
 * The supplier layouts: learned from what people validate (document.status_changed out of `to_validate`, queue option
 * `learn_from_validation`), read on the next document of the same supplier in the same queue.
 */
export class LayoutLearning {
  constructor(
    private readonly deps: {
      documents: Pick<DocumentPort, "findDocument" | "findQueue">;
      pages: Pick<PageStore, "list" | "words">;
      layouts: Pick<LayoutStore, "learn" | "places">;
      logger: Logger;
    },
  ) {}

  async onStatusChanged(event: DocexEvent<"document.status_changed">): Promise<"learned" | "skipped" | "duplicate"> {
    const { data } = event;
    if (data.previous_status !== "to_validate" || !VALIDATED.has(data.status) || data.user_id === null) return "skipped";
    const ctx = event.request_id ? { requestId: event.request_id } : {};
    const queue = await this.deps.documents.findQueue(data.queue_id, ctx);
    if (!queue?.learnFromValidation) return "skipped";
    const document = await this.deps.documents.findDocument(data.document_id, ctx);
    const identity = document && supplierIdentity(supplierIdsOf(document.annotations));
    if (!document || !identity) return "skipped";
    const words = await wordsOf(this.deps.pages, document.id);
    if (words.size === 0) return "skipped";
    const sources = new Map(document.annotations.map((annotation) => [annotation.key, annotation.source]));
    const places: LearnedPlace[] = placesOf(queue.schema, document.annotations, words).map((place) => {
      const source = sources.get(place.fieldKey);
      return { ...place, outcome: source === LAYOUT_SOURCE ? "kept" : source === "user" ? "corrected" : "confirmed" };
    });
    const learned = await this.deps.layouts.learn(
      { eventId: event.id, documentId: document.id, queueId: queue.id, supplierKey: identity.key },
      places,
    );
    if (learned) this.deps.logger.info({ document_id: document.id, places: places.length }, "supplier layout learned from a validation");
    return learned ? "learned" : "duplicate";
  }

  /**
   * The fields the supplier's learned layout reads on a new document, replacing what the engine read for them: a place
   * people confirmed reads this supplier's layout better than labels do. Fields the layout does not find stay as read.
   */
  async apply(queueId: string, schema: readonly SchemaField[], annotations: Annotation[], pages: PageWords): Promise<Annotation[]> {
    const identity = supplierIdentity(supplierIdsOf(annotations));
    if (!identity || pages.size === 0) return annotations;
    const places = await this.deps.layouts.places(queueId, identity.key);
    if (places.length === 0) return annotations;
    // A value read exactly (an e-invoice's XML, a checksummed payment code) is better than any place on the page.
    const exact = new Set(
      annotations.filter((annotation) => EXACT_SOURCES.has(annotation.source ?? "")).map((annotation) => annotation.key),
    );
    const read = new Map(
      readPlaces(schema, places, pages)
        .filter((annotation) => !exact.has(annotation.key))
        .map((annotation) => [annotation.key, annotation]),
    );
    const kept = annotations.filter((annotation) => !read.has(annotation.key));
    return [...kept, ...read.values()];
  }
}
