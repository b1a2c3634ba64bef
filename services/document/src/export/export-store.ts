import type { Sql, Tx } from "@docex/kit/db";
import type { DocumentExport } from "../domain/records.js";
import type { ExportFile, ExportFormat } from "./formats/index.js";

export type ExportTrigger = "on_ready" | "manual";

export interface ExportConfig {
  id: string;
  queueId: string;
  organizationId: string;
  name: string;
  format: ExportFormat;
  trigger: ExportTrigger;
  options: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export type RunStatus = "running" | "done" | "failed";

export interface ExportRun {
  id: string;
  exportId: string;
  queueId: string;
  organizationId: string;
  format: ExportFormat;
  options: Record<string, unknown>;
  status: RunStatus;
  documentIds: string[];
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
  /** When the file was dropped because a document in it was purged (its lifetime ran out); null while it is kept. */
  filePurgedAt: Date | null;
}

const EXPORT_COLUMNS = `id, queue_id AS "queueId", organization_id AS "organizationId", name, format, trigger, options,
  created_at AS "createdAt", updated_at AS "updatedAt"`;
const RUN_COLUMNS = `id, export_id AS "exportId", queue_id AS "queueId", organization_id AS "organizationId", format, options, status,
  document_ids::text[] AS "documentIds", error, created_at AS "createdAt", finished_at AS "finishedAt",
  file_purged_at AS "filePurgedAt"`;

/** Export configurations, their runs and files, and the exports recorded on documents. */
export class ExportStore {
  constructor(private readonly sql: Sql) {}

  async insert(tx: Tx, config: Omit<ExportConfig, "createdAt" | "updatedAt">): Promise<ExportConfig> {
    const row = await this.sql.one<ExportConfig>(
      `INSERT INTO exports (id, queue_id, organization_id, name, format, trigger, options)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb) RETURNING ${EXPORT_COLUMNS}`,
      [config.id, config.queueId, config.organizationId, config.name, config.format, config.trigger, JSON.stringify(config.options)],
      tx,
    );
    if (!row) throw new Error("INSERT ... RETURNING returned no row");
    return row;
  }

  /** With `lock`, the row is held until the transaction ends (a change reads what it replaces). */
  find(id: string, tx?: Tx, lock = false): Promise<ExportConfig | undefined> {
    return this.sql.one<ExportConfig>(`SELECT ${EXPORT_COLUMNS} FROM exports WHERE id = $1${lock ? " FOR UPDATE" : ""}`, [id], tx);
  }

  listOfQueue(queueId: string, trigger?: ExportTrigger): Promise<ExportConfig[]> {
    return this.sql.rows<ExportConfig>(
      `SELECT ${EXPORT_COLUMNS} FROM exports WHERE queue_id = $1 AND ($2::text IS NULL OR trigger = $2) ORDER BY created_at, id`,
      [queueId, trigger ?? null],
    );
  }

  async update(tx: Tx, config: ExportConfig): Promise<ExportConfig | undefined> {
    return this.sql.one<ExportConfig>(
      `UPDATE exports SET name = $2, format = $3, trigger = $4, options = $5::jsonb, updated_at = now() WHERE id = $1
       RETURNING ${EXPORT_COLUMNS}`,
      [config.id, config.name, config.format, config.trigger, JSON.stringify(config.options)],
      tx,
    );
  }

  /** The export as it was; undefined when another request deleted it first. */
  delete(tx: Tx, id: string): Promise<ExportConfig | undefined> {
    return this.sql.one<ExportConfig>(`DELETE FROM exports WHERE id = $1 RETURNING ${EXPORT_COLUMNS}`, [id], tx);
  }

  /** A new run; with `triggerEventId`, the run that event already started when there is one (undefined then). */
  async insertRun(
    tx: Tx,
    run: Omit<ExportRun, "createdAt" | "finishedAt" | "error" | "filePurgedAt">,
    triggerEventId?: string,
  ): Promise<ExportRun | undefined> {
    return this.sql.one<ExportRun>(
      `INSERT INTO export_runs (id, export_id, queue_id, organization_id, format, options, status, document_ids, trigger_event_id)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8::uuid[], $9)
       ON CONFLICT DO NOTHING RETURNING ${RUN_COLUMNS}`,
      [
        run.id,
        run.exportId,
        run.queueId,
        run.organizationId,
        run.format,
        JSON.stringify(run.options),
        run.status,
        run.documentIds,
        triggerEventId ?? null,
      ],
      tx,
    );
  }

  async finishRun(tx: Tx, runId: string, outcome: { status: "done"; file: ExportFile } | { status: "failed"; error: string }) {
    const file = outcome.status === "done" ? outcome.file : undefined;
    await this.sql.run(
      `UPDATE export_runs SET status = $2, error = $3, file_name = $4, content_type = $5, file = $6, finished_at = now() WHERE id = $1`,
      [
        runId,
        outcome.status,
        outcome.status === "failed" ? outcome.error : null,
        file?.name ?? null,
        file?.contentType ?? null,
        file?.bytes ?? null,
      ],
      tx,
    );
  }

  findRun(id: string, tx?: Tx): Promise<ExportRun | undefined> {
    return this.sql.one<ExportRun>(`SELECT ${RUN_COLUMNS} FROM export_runs WHERE id = $1`, [id], tx);
  }

  runFile(id: string): Promise<{ name: string; contentType: string; bytes: Buffer } | undefined> {
    return this.sql.one(
      `SELECT file_name AS name, content_type AS "contentType", file AS bytes FROM export_runs WHERE id = $1 AND file IS NOT NULL`,
      [id],
    );
  }

  /** Adds an export to the document's list and, when given, sets its external id; in the move's transaction. */
  async recordOnDocument(tx: Tx, documentId: string, entry: DocumentExport, externalId?: string): Promise<void> {
    await this.sql.run(
      `UPDATE documents SET exports = exports || jsonb_build_array($2::jsonb), external_id = COALESCE($3, external_id) WHERE id = $1`,
      [documentId, JSON.stringify(entry), externalId ?? null],
      tx,
    );
  }
}
