import type { Sql, Tx } from "@docex/kit/db";
import type { Queue } from "../domain/records.js";

/** A queue whose documents have a lifetime. */
export type QueueWithLifetime = Pick<Queue, "id" | "workspaceId" | "organizationId"> & { documentLifetimeDays: number };

/** What the lifetime sweep reads and deletes: queues with a lifetime, and their documents older than it. */
export class LifetimeStore {
  constructor(private readonly sql: Sql) {}

  queuesWithLifetime(): Promise<QueueWithLifetime[]> {
    return this.sql.rows<QueueWithLifetime>(
      `SELECT id, workspace_id AS "workspaceId", organization_id AS "organizationId", document_lifetime_days AS "documentLifetimeDays"
       FROM queues WHERE document_lifetime_days IS NOT NULL ORDER BY id`,
      [],
    );
  }

  /**
   * Deletes up to `limit` documents of the queue uploaded before `before`, with their changes, validation jobs, the
   * validators noted on them and the files of the export runs and payment batches that hold them (documents another transaction holds are left for the next batch). Answers the ids
   * purged and those whose files are to be removed from the file store after the commit. The organization's stored
   * bytes follow by trigger.
   */
  async purgeOlderThan(tx: Tx, queueId: string, before: Date, limit: number): Promise<{ purged: string[]; withFiles: string[] }> {
    const doomed = await this.sql.rows<{ id: string; has_file: boolean }>(
      `SELECT id, file_size IS NOT NULL AS has_file FROM documents
       WHERE queue_id = $1 AND created_at < $2 ORDER BY created_at, id LIMIT $3 FOR UPDATE SKIP LOCKED`,
      [queueId, before, limit],
      tx,
    );
    const ids = doomed.map((row) => row.id);
    if (ids.length === 0) return { purged: [], withFiles: [] };
    for (const table of ["document_changes", "initial_validation_jobs"]) {
      await this.sql.run(`DELETE FROM ${table} WHERE document_id = ANY($1::uuid[])`, [ids], tx);
    }
    await this.sql.run(`DELETE FROM validation_webhooks WHERE entity_type = 'document' AND entity_id = ANY($1::uuid[])`, [ids], tx);
    // Exported bytes do not outlive the documents in them: a run's or batch's file holding one goes (the record stays).
    await this.sql.run(
      `UPDATE export_runs SET file = NULL, file_purged_at = now() WHERE document_ids && $1::uuid[] AND file_purged_at IS NULL`,
      [ids],
      tx,
    );
    await this.sql.run(
      `UPDATE payment_batches SET file = NULL, file_purged_at = now()
       WHERE id IN (SELECT batch_id FROM payment_batch_documents WHERE document_id = ANY($1::uuid[])) AND file_purged_at IS NULL`,
      [ids],
      tx,
    );
    await this.sql.run("DELETE FROM payment_batch_documents WHERE document_id = ANY($1::uuid[])", [ids], tx);
    await this.sql.run("DELETE FROM documents WHERE id = ANY($1::uuid[])", [ids], tx);
    return { purged: ids, withFiles: doomed.filter((row) => row.has_file).map((row) => row.id) };
  }
}
