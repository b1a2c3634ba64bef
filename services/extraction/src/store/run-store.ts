import type { Sql } from "@docex/kit/db";

export interface ExtractionRun {
  eventId: string;
  documentId: string;
  queueId: string;
  format: string | null;
  outcome: string;
  fieldsFound: number;
  durationMs: number;
}

/** What became of each document.created event; the consumer's record of work done. */
export class RunStore {
  constructor(private readonly sql: Sql) {}

  async handled(eventId: string): Promise<boolean> {
    const rows = await this.sql.rows("SELECT 1 FROM extraction_runs WHERE event_id = $1", [eventId]);
    return rows.length > 0;
  }

  /** Counts one more started read of the event's file and answers how many never ended, this one included. */
  async startRead(read: { eventId: string; documentId: string; queueId: string }): Promise<number> {
    const row = await this.sql.one<{ reads: number }>(
      `INSERT INTO extraction_reads (event_id, document_id, queue_id, reads) VALUES ($1, $2, $3, 1)
       ON CONFLICT (event_id) DO UPDATE SET reads = extraction_reads.reads + 1, last_started_at = now()
       RETURNING reads`,
      [read.eventId, read.documentId, read.queueId],
    );
    return Number(row?.reads ?? 1);
  }

  /** A read of the event's file ended (with any result): it no longer counts against the file. */
  async endRead(eventId: string): Promise<void> {
    await this.sql.run("DELETE FROM extraction_reads WHERE event_id = $1", [eventId]);
  }

  async record(run: ExtractionRun): Promise<void> {
    await this.sql.run(
      `INSERT INTO extraction_runs (event_id, document_id, queue_id, format, outcome, fields_found, duration_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (event_id) DO NOTHING`,
      [run.eventId, run.documentId, run.queueId, run.format, run.outcome, run.fieldsFound, run.durationMs],
    );
  }

  async forDocument(documentId: string): Promise<ExtractionRun[]> {
    const rows = await this.sql.rows<Record<string, unknown>>("SELECT * FROM extraction_runs WHERE document_id = $1 ORDER BY created_at", [
      documentId,
    ]);
    return rows.map((row) => ({
      eventId: row.event_id as string,
      documentId: row.document_id as string,
      queueId: row.queue_id as string,
      format: row.format as string | null,
      outcome: row.outcome as string,
      fieldsFound: Number(row.fields_found),
      durationMs: Number(row.duration_ms),
    }));
  }
}
