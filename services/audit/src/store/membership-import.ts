import type { Sql } from "@docex/kit/db";

/** Rows read and written per statement: a bounded memory and short write transactions, whatever the log's size. */
const IMPORT_BATCH = 5_000;

export interface ImportResult {
  /** Entries found in membership's database. */
  read: number;
  /** Entries this run added; 0 when an earlier run (or the consumer) recorded them all. */
  added: number;
}

const COLUMNS = "event_id, organization_id, type, occurred_at, user_id, request_id, document_id, queue_id, details, recorded_at";

/**
 * Copies the audit entries membership recorded (its tables `audit_entries`, from before the audit log was a service of
 * its own) into this service's database. Idempotent: an entry's key is (event id, organization), as when the consumer
 * records it, so a second run, or entries the consumer re-derived from the stream meanwhile, add nothing. The counts
 * per organization and type grow by the entries actually added, by the same statement, so they stay exact.
 *
 * Membership's table is read in one snapshot (a cursor in a read-only repeatable-read transaction); they are no
 * longer written to once membership runs without the audit log.
 */
export async function importMembershipAudit(source: Sql, target: Sql): Promise<ImportResult> {
  const result: ImportResult = { read: 0, added: 0 };
  // A membership database created after the move has no audit tables: nothing to copy.
  const table = await source.one<{ found: string | null }>("SELECT to_regclass('audit_entries')::text AS found");
  if (!table?.found) return result;
  await source.transaction(
    async (tx) => {
      await source.run("SET TRANSACTION READ ONLY", [], tx);
      await source.run(`DECLARE membership_audit NO SCROLL CURSOR FOR SELECT ${COLUMNS} FROM audit_entries`, [], tx);
      for (;;) {
        const rows = await source.rows<Record<string, unknown>>(`FETCH ${IMPORT_BATCH} FROM membership_audit`, [], tx);
        if (rows.length === 0) break;
        result.read += rows.length;
        result.added += await appendRows(target, rows);
      }
    },
    { isolation: "repeatable read" },
  );
  return result;
}

async function appendRows(target: Sql, rows: Record<string, unknown>[]): Promise<number> {
  const row = await target.one<{ added: string }>(
    `WITH inserted AS (
       INSERT INTO audit_entries (${COLUMNS})
       SELECT ${COLUMNS} FROM jsonb_to_recordset($1::jsonb) AS copied (
         event_id uuid, organization_id uuid, type text, occurred_at timestamptz, user_id uuid, request_id text,
         document_id uuid, queue_id uuid, details jsonb, recorded_at timestamptz)
       ON CONFLICT (event_id, organization_id) DO NOTHING
       RETURNING organization_id, type),
     counted AS (
       INSERT INTO audit_counts (organization_id, type, entries)
       SELECT organization_id, type, count(*) FROM inserted WHERE organization_id IS NOT NULL GROUP BY 1, 2
       ON CONFLICT (organization_id, type) DO UPDATE SET entries = audit_counts.entries + EXCLUDED.entries)
     SELECT count(*) AS added FROM inserted`,
    [JSON.stringify(rows)],
  );
  return Number(row?.added ?? 0);
}
