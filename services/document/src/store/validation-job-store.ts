import type { Sql, Tx } from "@docex/kit/db";

/** A claimed job: `attempt` is this run's number and the fence of its later writes. */
export interface ClaimedJob {
  documentId: string;
  attempt: number;
}

/** The jobs of initial_document_validation (migration 0002): one per document, due, leased, retried, done. */
export class ValidationJobStore {
  constructor(private readonly sql: Sql) {}

  /** Due at once; a document extracted again starts over. In the extraction's transaction. */
  async schedule(tx: Tx, documentId: string): Promise<void> {
    await this.sql.rows(
      `INSERT INTO initial_validation_jobs (document_id) VALUES ($1)
       ON CONFLICT (document_id) DO UPDATE SET attempts = 0, next_attempt_at = now(), last_error = NULL
       RETURNING document_id`,
      [documentId],
      tx,
    );
  }

  /** Up to `limit` due jobs, each leased for `leaseMs` and counted as an attempt; replicas never claim the same one. */
  claim(limit: number, leaseMs: number): Promise<ClaimedJob[]> {
    return this.sql.rows<ClaimedJob>(
      `UPDATE initial_validation_jobs SET attempts = attempts + 1, next_attempt_at = now() + $2 * interval '1 millisecond'
       WHERE document_id IN (
         SELECT document_id FROM initial_validation_jobs WHERE next_attempt_at <= now()
         ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING document_id AS "documentId", attempts AS attempt`,
      [limit, leaseMs],
    );
  }

  /** Done (answered, or given up): gone, unless another extraction scheduled it again meanwhile. */
  async finish(job: ClaimedJob): Promise<void> {
    await this.sql.rows(`DELETE FROM initial_validation_jobs WHERE document_id = $1 AND attempts = $2 RETURNING document_id`, [
      job.documentId,
      job.attempt,
    ]);
  }

  async retryLater(job: ClaimedJob, delayMs: number, error: string): Promise<void> {
    await this.sql.rows(
      `UPDATE initial_validation_jobs SET next_attempt_at = now() + $3 * interval '1 millisecond', last_error = $4
       WHERE document_id = $1 AND attempts = $2 RETURNING document_id`,
      [job.documentId, job.attempt, delayMs, error],
    );
  }
}
