import { prepared, type Sql } from "@docex/kit/db";
import type { AuditEntry, AuditedType } from "../domain/audit-entries.js";

/** An audit line as stored: the entry and the organization it was recorded for. */
export interface StoredAuditEntry extends AuditEntry {
  organizationId: string | null;
}

export interface AuditFilter {
  /** Exactly one of the two scopes. */
  organizationId?: string;
  documentId?: string;
  /** Exact types to keep; undefined keeps every type. */
  types?: readonly AuditedType[];
  userId?: string;
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  to?: Date;
  order: "asc" | "desc";
}

interface AuditRow {
  event_id: string;
  organization_id: string | null;
  type: AuditedType;
  occurred_at: Date;
  user_id: string | null;
  request_id: string | null;
  document_id: string | null;
  queue_id: string | null;
  details: Record<string, unknown>;
}

/** Rows deleted (or erased) per statement of the retention purge (or an erasure), so that it never holds many locks for long. */
const PURGE_BATCH = 5_000;

/** The consumer's insert, once per event: prepared on each connection (kit `Prepared`). */
const APPEND = prepared(
  `WITH inserted AS (
     INSERT INTO audit_entries (event_id, organization_id, type, occurred_at, user_id, request_id, document_id, queue_id, details)
     SELECT $1, organization.id, $2, $3, $4, $5, $6, $7, $8::jsonb FROM unnest($9::uuid[]) AS organization (id)
     ON CONFLICT (event_id, organization_id) DO NOTHING
     RETURNING organization_id, type)
   INSERT INTO audit_counts (organization_id, type, entries)
   SELECT organization_id, type, count(*) FROM inserted WHERE organization_id IS NOT NULL GROUP BY 1, 2
   ON CONFLICT (organization_id, type) DO UPDATE SET entries = audit_counts.entries + EXCLUDED.entries`,
);

/** What lets a transaction change entries (the table's triggers refuse any other update or delete). */
const ERASURE = { settings: { "docex.audit_erasure": "on" } };
const PURGE = { settings: { "docex.audit_purge": "on" } };

/** The audit_entries table: appended to by the consumer, read by the audit-log endpoints, aged out by the purge. */
export class AuditStore {
  constructor(private readonly sql: Sql) {}

  /** Records `entry` once per organization; a redelivered event adds nothing. */
  async append(entry: AuditEntry, organizationIds: ReadonlyArray<string | null>): Promise<void> {
    if (organizationIds.length === 0) return;
    await this.sql.run(APPEND, [
      entry.eventId,
      entry.type,
      entry.occurredAt,
      entry.userId,
      entry.requestId,
      entry.documentId,
      entry.queueId,
      JSON.stringify(entry.details),
      organizationIds,
    ]);
  }

  /** The organization whose log holds entries of the document; undefined when none has reached the log. */
  async organizationOfDocument(documentId: string): Promise<string | undefined> {
    const row = await this.sql.one<{ organization_id: string }>(
      "SELECT organization_id FROM audit_entries WHERE document_id = $1 AND organization_id IS NOT NULL LIMIT 1",
      [documentId],
    );
    return row?.organization_id;
  }

  async page(filter: AuditFilter, page: { offset: number; limit: number }): Promise<{ entries: StoredAuditEntry[]; total: number }> {
    const conditions: string[] = [];
    const bind: unknown[] = [];
    const where = (sql: (param: string) => string, value: unknown) => {
      bind.push(value);
      conditions.push(sql(`$${bind.length}`));
    };
    if (filter.organizationId !== undefined) where((p) => `organization_id = ${p}`, filter.organizationId);
    if (filter.documentId !== undefined) where((p) => `document_id = ${p} AND organization_id IS NOT NULL`, filter.documentId);
    if (filter.types !== undefined) where((p) => `type = ANY(${p}::text[])`, filter.types);
    if (filter.userId !== undefined) where((p) => `user_id = ${p}`, filter.userId);
    if (filter.from !== undefined) where((p) => `occurred_at >= ${p}`, filter.from);
    if (filter.to !== undefined) where((p) => `occurred_at < ${p}`, filter.to);
    const clause = conditions.length ? `WHERE ${conditions.join(" AND ")}` : "";
    const direction = filter.order === "asc" ? "ASC" : "DESC";
    const [rows, counted] = await Promise.all([
      this.sql.rows<AuditRow>(
        `SELECT event_id, organization_id, type, occurred_at, user_id, request_id, document_id, queue_id, details
         FROM audit_entries ${clause}
         ORDER BY occurred_at ${direction}, event_id ${direction}
         LIMIT $${bind.length + 1} OFFSET $${bind.length + 2}`,
        [...bind, page.limit, page.offset],
      ),
      this.total(filter, clause, bind),
    ]);
    return { entries: rows.map(entryOf), total: counted };
  }

  /**
   * How many entries match. An organization's whole log, or its entries of some types, is summed from
   * audit_counts (a year can be millions of rows); a filter by user, time or document is selective enough, and
   * its index small enough, to count.
   */
  private async total(filter: AuditFilter, clause: string, bind: unknown[]): Promise<number> {
    const countable = filter.userId !== undefined || filter.from !== undefined || filter.to !== undefined;
    if (filter.organizationId !== undefined && filter.documentId === undefined && !countable) {
      const row = await this.sql.one<{ total: string | null }>(
        `SELECT sum(entries) AS total FROM audit_counts WHERE organization_id = $1 ${filter.types ? "AND type = ANY($2::text[])" : ""}`,
        filter.types ? [filter.organizationId, filter.types] : [filter.organizationId],
      );
      return Number(row?.total ?? 0);
    }
    const row = await this.sql.one<{ total: string }>(`SELECT count(*) AS total FROM audit_entries ${clause}`, bind);
    return Number(row?.total ?? 0);
  }

  /**
   * Erases the values of the entries `userId` made (in `organizationId`, or in every organization when undefined),
   * leaving out the entry of the erasure itself; a batch per transaction, so a redelivered erasure updates nothing.
   * Returns how many entries were erased.
   */
  async eraseValuesOf(userId: string, organizationId: string | undefined, exceptEventId: string, maxBatches = 1_000): Promise<number> {
    const scope = organizationId === undefined ? "" : " AND organization_id = $3";
    const bind = organizationId === undefined ? [userId, exceptEventId] : [userId, exceptEventId, organizationId];
    let erased = 0;
    for (let batch = 0; batch < maxBatches; batch += 1) {
      const updated = await this.sql.transaction(async (tx) => {
        const row = await this.sql.one<{ erased: string }>(
          `WITH erased AS (
             UPDATE audit_entries SET details = audit_erased_values(details), erased_at = now()
             WHERE ctid IN (SELECT ctid FROM audit_entries
                            WHERE user_id = $1 AND erased_at IS NULL AND event_id <> $2${scope} LIMIT ${PURGE_BATCH})
             RETURNING 1)
           SELECT count(*) AS erased FROM erased`,
          bind,
          tx,
        );
        return Number(row?.erased ?? 0);
      }, ERASURE);
      erased += updated;
      if (updated < PURGE_BATCH) break;
    }
    return erased;
  }

  /** Erases the values of the entries of purged documents (of their organization); answers how many were erased. */
  async eraseValuesOfDocuments(documentIds: string[], organizationId: string): Promise<number> {
    return this.sql.transaction(async (tx) => {
      const row = await this.sql.one<{ erased: string }>(
        `WITH erased AS (
           UPDATE audit_entries SET details = audit_erased_values(details), erased_at = now()
           WHERE document_id = ANY($1::uuid[]) AND organization_id = $2 AND erased_at IS NULL
           RETURNING 1)
         SELECT count(*) AS erased FROM erased`,
        [documentIds, organizationId],
        tx,
      );
      return Number(row?.erased ?? 0);
    }, ERASURE);
  }

  /** Deletes entries older than `before`, a batch per transaction; returns how many went. */
  async purgeOlderThan(before: Date, maxBatches = 100): Promise<number> {
    let purged = 0;
    for (let batch = 0; batch < maxBatches; batch += 1) {
      const deleted = await this.sql.transaction(async (tx) => {
        const row = await this.sql.one<{ deleted: string }>(
          `WITH deleted AS (
             DELETE FROM audit_entries WHERE ctid IN (SELECT ctid FROM audit_entries WHERE occurred_at < $1 LIMIT ${PURGE_BATCH})
             RETURNING organization_id, type),
           counted AS (
             UPDATE audit_counts SET entries = audit_counts.entries - gone.entries
             FROM (SELECT organization_id, type, count(*) AS entries FROM deleted WHERE organization_id IS NOT NULL GROUP BY 1, 2) AS gone
             WHERE audit_counts.organization_id = gone.organization_id AND audit_counts.type = gone.type)
           SELECT count(*) AS deleted FROM deleted`,
          [before],
          tx,
        );
        return Number(row?.deleted ?? 0);
      }, PURGE);
      purged += deleted;
      if (deleted < PURGE_BATCH) break;
    }
    return purged;
  }
}

function entryOf(row: AuditRow): StoredAuditEntry {
  return {
    eventId: row.event_id,
    organizationId: row.organization_id,
    type: row.type,
    occurredAt: new Date(row.occurred_at).toISOString(),
    userId: row.user_id,
    requestId: row.request_id,
    documentId: row.document_id,
    queueId: row.queue_id,
    details: row.details,
  };
}
