import { claimEvent } from "@docex/kit/bus";
import type { Sql, Tx } from "@docex/kit/db";
import type { ConfirmedField } from "../domain/learn-set.js";
import type { FieldContent, SupplierIds, Visibility } from "../domain/records.js";

export interface FeedbackRecord {
  id: string;
  kind: "learn" | "relearn";
  organizationId: string;
  queueId: string;
  documentId: string | null;
  userId: string;
  supplier: SupplierIds;
  supplierKey: string | null;
  payload: unknown;
}

/** A supplier's memory as stored: pins, the latest confirmations of each field (newest first), preferences. */
export interface StoredMemory {
  pins: Map<string, string>;
  confirmations: Map<string, FieldContent[]>;
  lineItemsVisibility: Visibility | null;
  taxDetailVisibility: Visibility | null;
}

export interface FillRecord {
  eventId: string;
  documentId: string;
  queueId: string;
  supplierKey: string | null;
  outcome: string;
  filledKeys: string[];
  documentVersion: number | null;
  attempts: number;
}

interface MemoryKey {
  queueId: string;
  supplierKey: string;
}

/** The learning database: feedback, the per-queue supplier field memory, and what was filled. Plain objects only. */
export class MemoryStore {
  constructor(private readonly sql: Sql) {}

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.sql.transaction(work);
  }

  async recordFeedback(tx: Tx, record: FeedbackRecord): Promise<void> {
    await this.sql.run(
      `INSERT INTO feedback (id, kind, organization_id, queue_id, document_id, user_id, supplier, supplier_key, payload)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9::jsonb)`,
      [
        record.id,
        record.kind,
        record.organizationId,
        record.queueId,
        record.documentId,
        record.userId,
        JSON.stringify({ tax_id: record.supplier.taxId, register_id: record.supplier.registerId, name: record.supplier.name }),
        record.supplierKey,
        JSON.stringify(record.payload),
      ],
      tx,
    );
  }

  /** Adds confirmations and drops those beyond the latest `keep` of each field. */
  async confirm(tx: Tx, key: MemoryKey, fields: readonly ConfirmedField[], feedbackId: string, keep: number): Promise<void> {
    if (fields.length === 0) return;
    const values: unknown[] = [key.queueId, key.supplierKey, feedbackId];
    const rows = fields.map((field, index) => {
      values.push(field.key, JSON.stringify(field.content));
      return `($1, $2, $${index * 2 + 4}, $${index * 2 + 5}::jsonb, $3)`;
    });
    await this.sql.run(
      `INSERT INTO field_confirmations (queue_id, supplier_key, field_key, content, feedback_id) VALUES ${rows.join(", ")}`,
      values,
      tx,
    );
    await this.sql.run(
      `DELETE FROM field_confirmations c USING (
         SELECT seq, row_number() OVER (PARTITION BY field_key ORDER BY seq DESC) AS position
         FROM field_confirmations WHERE queue_id = $1 AND supplier_key = $2 AND field_key = ANY($3::text[])
       ) ranked
       WHERE c.seq = ranked.seq AND ranked.position > $4`,
      [key.queueId, key.supplierKey, fields.map((field) => field.key), keep],
      tx,
    );
  }

  /** Remembers the visibility preferences given; one left out keeps what was remembered. */
  async setPreferences(
    tx: Tx,
    key: MemoryKey,
    preferences: { lineItemsVisibility: Visibility | null; taxDetailVisibility: Visibility | null },
  ): Promise<void> {
    if (preferences.lineItemsVisibility === null && preferences.taxDetailVisibility === null) return;
    await this.sql.run(
      `INSERT INTO supplier_preferences (queue_id, supplier_key, line_items_visibility, tax_detail_visibility)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (queue_id, supplier_key) DO UPDATE SET
         line_items_visibility = COALESCE(EXCLUDED.line_items_visibility, supplier_preferences.line_items_visibility),
         tax_detail_visibility = COALESCE(EXCLUDED.tax_detail_visibility, supplier_preferences.tax_detail_visibility),
         updated_at = now()`,
      [key.queueId, key.supplierKey, preferences.lineItemsVisibility, preferences.taxDetailVisibility],
      tx,
    );
  }

  async pin(tx: Tx, key: MemoryKey, fieldKey: string, value: string, feedbackId: string): Promise<void> {
    await this.sql.run(
      `INSERT INTO pinned_fields (queue_id, supplier_key, field_key, value, feedback_id) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (queue_id, supplier_key, field_key) DO UPDATE SET
         value = EXCLUDED.value, feedback_id = EXCLUDED.feedback_id, pinned_at = now()`,
      [key.queueId, key.supplierKey, fieldKey, value, feedbackId],
      tx,
    );
  }

  /** Forgets a field of a supplier: its pin and every confirmation learned so far. */
  async forget(tx: Tx, key: MemoryKey, fieldKey: string): Promise<void> {
    const bind = [key.queueId, key.supplierKey, fieldKey];
    await this.sql.run("DELETE FROM pinned_fields WHERE queue_id = $1 AND supplier_key = $2 AND field_key = $3", bind, tx);
    await this.sql.run("DELETE FROM field_confirmations WHERE queue_id = $1 AND supplier_key = $2 AND field_key = $3", bind, tx);
  }

  async memoryOf(key: MemoryKey, window: number, tx?: Tx): Promise<StoredMemory> {
    const bind = [key.queueId, key.supplierKey];
    // One after the other: inside a transaction they share one connection.
    const pins = await this.sql.rows<{ field_key: string; value: string }>(
      "SELECT field_key, value FROM pinned_fields WHERE queue_id = $1 AND supplier_key = $2",
      bind,
      tx,
    );
    const confirmations = await this.sql.rows<{ field_key: string; content: FieldContent }>(
      `SELECT field_key, content FROM (
         SELECT field_key, content, seq, row_number() OVER (PARTITION BY field_key ORDER BY seq DESC) AS position
         FROM field_confirmations WHERE queue_id = $1 AND supplier_key = $2
       ) latest
       WHERE position <= $3 ORDER BY field_key, seq DESC`,
      [...bind, window],
      tx,
    );
    const preferences = await this.sql.rows<{ line_items_visibility: Visibility | null; tax_detail_visibility: Visibility | null }>(
      "SELECT line_items_visibility, tax_detail_visibility FROM supplier_preferences WHERE queue_id = $1 AND supplier_key = $2",
      bind,
      tx,
    );
    const history = new Map<string, FieldContent[]>();
    for (const row of confirmations) history.set(row.field_key, [...(history.get(row.field_key) ?? []), row.content]);
    return {
      pins: new Map(pins.map((row) => [row.field_key, row.value])),
      confirmations: history,
      lineItemsVisibility: preferences[0]?.line_items_visibility ?? null,
      taxDetailVisibility: preferences[0]?.tax_detail_visibility ?? null,
    };
  }

  /** False when `consumer` handled `eventId` before (its transaction committed): a redelivery does nothing. */
  claim(tx: Tx, consumer: string, eventId: string): Promise<boolean> {
    return claimEvent(this.sql, tx, consumer, eventId);
  }

  async recordFill(tx: Tx, fill: FillRecord): Promise<void> {
    await this.sql.run(
      `INSERT INTO learned_fills (event_id, document_id, queue_id, supplier_key, outcome, filled_keys, document_version, attempts)
       VALUES ($1, $2, $3, $4, $5, $6::text[], $7, $8) ON CONFLICT (event_id) DO NOTHING`,
      [fill.eventId, fill.documentId, fill.queueId, fill.supplierKey, fill.outcome, fill.filledKeys, fill.documentVersion, fill.attempts],
      tx,
    );
  }
}
