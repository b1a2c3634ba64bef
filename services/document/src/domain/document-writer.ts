import type { DocexEvent } from "@docex/events";
import type { OutboxEvents } from "@docex/kit/bus";
import type { Tx } from "@docex/kit/db";
import type { DocumentStore } from "../store/document-store.js";
import { annotationsChanged, documentExtracted, statusChanged } from "./document-events.js";
import type { ChangeSource, StoredDocument } from "./records.js";

export interface ChangeMeta {
  source: ChangeSource;
  /** The user who made the change; null for the extraction engine's service work and other contexts. */
  userId: string | null;
  requestId?: string;
  idempotencyKey?: string;
  appliedRules?: string[];
  /** The AI's result: announced as document.extracted instead of document.annotations_changed. */
  extraction?: boolean;
}

const PARTS = [
  "annotations",
  "messages",
  "options",
  "approvers",
  "approval",
  "status",
  "confidence",
  "automationBlockers",
] as const satisfies readonly (keyof StoredDocument)[];

/** The parts of a document that differ between two states of it; none means there is nothing to write. */
export function changedParts(before: StoredDocument, after: StoredDocument): string[] {
  return PARTS.filter((part) => canonicalJson(before[part]) !== canonicalJson(after[part]));
}

/** JSON with object keys in one order: a document read back from jsonb has its keys in jsonb's order, not in ours. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/**
 * The one way a document changes: the new state under the row lock, a version bump, an entry in the trail,
 * and the events the change implies, all in the caller's transaction. A change that changes nothing writes nothing.
 */
export class DocumentWriter {
  constructor(
    private readonly store: DocumentStore,
    private readonly events: OutboxEvents,
  ) {}

  async write(tx: Tx, before: StoredDocument, after: StoredDocument, meta: ChangeMeta): Promise<StoredDocument> {
    const changed = changedParts(before, after);
    if (changed.length === 0) {
      if (meta.idempotencyKey) await this.record(tx, before, meta, { applied: true, reason: "", changed });
      return before;
    }
    const saved = await this.store.update(tx, after, before.version);
    await this.record(tx, saved, meta, { applied: true, reason: "", changed });
    const events: DocexEvent[] = [];
    if (meta.extraction) events.push(documentExtracted(saved, meta));
    else if (changed.includes("annotations")) events.push(annotationsChanged(before, saved, meta));
    if (changed.includes("status")) events.push(statusChanged(before, saved, meta));
    await this.events.add(tx, ...events);
    return saved;
  }

  /** Remembers a refused change (audit trail, and the answer to a repeated idempotency key). */
  async refuse(tx: Tx, document: StoredDocument, meta: ChangeMeta, reason: string): Promise<void> {
    await this.record(tx, document, meta, { applied: false, reason, changed: [] });
  }

  private async record(
    tx: Tx,
    document: StoredDocument,
    meta: ChangeMeta,
    outcome: { applied: boolean; reason: string; changed: string[] },
  ) {
    await this.store.recordChange(tx, {
      documentId: document.id,
      source: meta.source,
      userId: meta.userId,
      idempotencyKey: meta.idempotencyKey ?? null,
      version: document.version,
      appliedRules: meta.appliedRules ?? [],
      ...outcome,
    });
  }
}
