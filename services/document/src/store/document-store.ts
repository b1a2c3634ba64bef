import type { DocumentStatus, StoredDocument } from "../domain/records.js";
import type { Sql, Tx } from "./sql.js";

const DOCUMENT_COLUMNS = `id, queue_id AS "queueId", workspace_id AS "workspaceId", organization_id AS "organizationId",
  file_name AS "fileName", status, annotations, messages, options, approvers::text[] AS approvers, confidence, version,
  created_at AS "createdAt", updated_at AS "updatedAt"`;

export interface DocumentQuery {
  queueId: string;
  statuses: DocumentStatus[];
  /** Only documents this user approves. */
  approverId?: string;
  offset: number;
  limit: number;
}

export interface ChangeRecord {
  documentId: string;
  source: string;
  userId: string | null;
  idempotencyKey: string | null;
  applied: boolean;
  reason: string;
  version: number;
  changed: string[];
  appliedRules: string[];
}

/** Documents and the trail of their changes. */
export class DocumentStore {
  constructor(private readonly sql: Sql) {}

  async insert(tx: Tx, document: Omit<StoredDocument, "version" | "createdAt" | "updatedAt">): Promise<StoredDocument> {
    const inserted = await this.sql.one<StoredDocument>(
      `INSERT INTO documents (id, queue_id, workspace_id, organization_id, file_name, status, annotations, messages, options, approvers, confidence)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9::jsonb, $10::uuid[], $11)
       RETURNING ${DOCUMENT_COLUMNS}`,
      [
        document.id,
        document.queueId,
        document.workspaceId,
        document.organizationId,
        document.fileName,
        document.status,
        JSON.stringify(document.annotations),
        JSON.stringify(document.messages),
        JSON.stringify(document.options),
        document.approvers,
        document.confidence,
      ],
      tx,
    );
    if (!inserted) throw new Error("INSERT ... RETURNING returned no row");
    return inserted;
  }

  /** With `lock`, the row stays locked until `tx` ends: the writers of one document take turns. */
  find(id: string, tx?: Tx, lock = false): Promise<StoredDocument | undefined> {
    return this.sql.one<StoredDocument>(`SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE id = $1${lock ? " FOR UPDATE" : ""}`, [id], tx);
  }

  /** Writes `next` as version `previousVersion + 1`; fails if someone else wrote in between. */
  async update(tx: Tx, next: StoredDocument, previousVersion: number): Promise<StoredDocument> {
    const updated = await this.sql.one<StoredDocument>(
      `UPDATE documents SET status = $3, annotations = $4::jsonb, messages = $5::jsonb, options = $6::jsonb,
         approvers = $7::uuid[], confidence = $8, version = version + 1, updated_at = now()
       WHERE id = $1 AND version = $2
       RETURNING ${DOCUMENT_COLUMNS}`,
      [
        next.id,
        previousVersion,
        next.status,
        JSON.stringify(next.annotations),
        JSON.stringify(next.messages),
        JSON.stringify(next.options),
        next.approvers,
        next.confidence,
      ],
      tx,
    );
    if (!updated) throw new Error(`document ${next.id} changed under a lock (expected version ${previousVersion})`);
    return updated;
  }

  async list(query: DocumentQuery): Promise<{ items: StoredDocument[]; total: number }> {
    const conditions = ["queue_id = $1", "status = ANY($2::text[])"];
    const bind: unknown[] = [query.queueId, query.statuses];
    if (query.approverId) {
      bind.push(query.approverId);
      conditions.push(`approvers @> ARRAY[$${bind.length}]::uuid[]`);
    }
    const filter = conditions.join(" AND ");
    const [items, counted] = await Promise.all([
      this.sql.rows<StoredDocument>(
        `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE ${filter} ORDER BY created_at, id LIMIT $${bind.length + 1} OFFSET $${bind.length + 2}`,
        [...bind, query.limit, query.offset],
      ),
      this.sql.one<{ total: string }>(`SELECT count(*) AS total FROM documents WHERE ${filter}`, bind),
    ]);
    return { items, total: Number(counted?.total ?? 0) };
  }

  async recordChange(tx: Tx, change: ChangeRecord): Promise<void> {
    await this.sql.rows(
      `INSERT INTO document_changes (document_id, source, user_id, idempotency_key, applied, reason, version, changed, applied_rules)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text[], $9::uuid[]) RETURNING seq`,
      [
        change.documentId,
        change.source,
        change.userId,
        change.idempotencyKey,
        change.applied,
        change.reason,
        change.version,
        change.changed,
        change.appliedRules,
      ],
      tx,
    );
  }

  /** The outcome of an earlier change with this idempotency key, if there was one. */
  findChange(
    tx: Tx,
    documentId: string,
    source: string,
    idempotencyKey: string,
  ): Promise<{ applied: boolean; reason: string } | undefined> {
    return this.sql.one(
      `SELECT applied, reason FROM document_changes WHERE document_id = $1 AND source = $2 AND idempotency_key = $3`,
      [documentId, source, idempotencyKey],
      tx,
    );
  }
}
