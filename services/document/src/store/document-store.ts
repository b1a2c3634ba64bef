import { prepared, type Sql, type Tx } from "@docex/kit/db";
import { duplicateKeysOf } from "../domain/duplicates.js";
import type { AutomationBlocker, DocumentSource, DocumentStatus, StoredDocument } from "../domain/records.js";

const DOCUMENT_COLUMNS = `id, queue_id AS "queueId", workspace_id AS "workspaceId", organization_id AS "organizationId",
  file_name AS "fileName", file_sha256 AS "fileSha256", file_content_type AS "fileContentType",
  file_size::double precision AS "fileSize", status, annotations, messages, options, approvers::text[] AS approvers, approval, confidence,
  automation_blockers AS "automationBlockers", source, external_id AS "externalId", exports, version, created_at AS "createdAt", updated_at AS "updatedAt"`;

// The statements of every read and edit of one document, prepared on each connection (kit `Prepared`).
const FIND = prepared(`SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE id = $1`);
const FIND_FOR_UPDATE = prepared(`SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE id = $1 FOR UPDATE`);
const UPDATE = prepared(
  `UPDATE documents SET status = $3, annotations = $4::jsonb, messages = $5::jsonb, options = $6::jsonb,
     approvers = $7::uuid[], confidence = $8, supplier_key = $9, invoice_key = $10, approval = $11::jsonb,
     automation_blockers = $12::jsonb, version = version + 1, updated_at = now(),
     deleted_at = CASE WHEN $3 = 'deleted' THEN COALESCE(deleted_at, now()) END
   WHERE id = $1 AND version = $2
   RETURNING ${DOCUMENT_COLUMNS}`,
);
const RECORD_CHANGE = prepared(
  `INSERT INTO document_changes (document_id, source, user_id, idempotency_key, applied, reason, version, changed, applied_rules)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text[], $9::uuid[])`,
);

/** Part of what a caller may read: an organization, maybe only some of its queues, maybe only what they approve. */
export interface ReadableScope {
  organizationId: string;
  /** null: every queue of the organization. */
  queueIds: string[] | null;
  /** Only documents this user approves (an approver reads what is assigned to them). */
  approverId?: string;
}

/** The orders of the lists: a column, ascending or (`-`) descending; ties broken by id, missing values last. */
export const DOCUMENT_SORTS = [
  "created_at",
  "-created_at",
  "due_date",
  "-due_date",
  "total_due",
  "-total_due",
  "updated_at",
  "-updated_at",
] as const;
export type DocumentSort = (typeof DOCUMENT_SORTS)[number];

export interface DocumentQuery {
  /** What the caller may read: documents in any of these (none: nothing). */
  scopes: ReadableScope[];
  queueId?: string;
  workspaceId?: string;
  statuses: DocumentStatus[];
  /** Lower case, without control characters: a part of the invoice number, supplier name or tax id, or file name. */
  q?: string;
  createdFrom?: Date;
  /** Exclusive. */
  createdBefore?: Date;
  /** Documents whose last change is at or after this instant. */
  updatedSince?: Date;
  /** Only documents this user approves. */
  approverId?: string;
  sort: DocumentSort;
  offset: number;
  limit: number;
}

const ORDER_BY: Record<DocumentSort, string> = {
  created_at: "created_at, id",
  "-created_at": "created_at DESC, id DESC",
  due_date: "due_date NULLS LAST, id",
  "-due_date": "due_date DESC NULLS LAST, id DESC",
  total_due: "total_due NULLS LAST, id",
  "-total_due": "total_due DESC NULLS LAST, id DESC",
  updated_at: "updated_at, id",
  "-updated_at": "updated_at DESC, id DESC",
};

/** `%` and `_` in a search are themselves, not wildcards. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** The WHERE clause of a list and its bound values. */
function listFilter(query: Omit<DocumentQuery, "sort" | "offset" | "limit">): { filter: string; bind: unknown[] } {
  const bind: unknown[] = [];
  const param = (value: unknown) => {
    bind.push(value);
    return `$${bind.length}`;
  };
  const scopes = query.scopes.map((scope) => {
    const parts = [`organization_id = ${param(scope.organizationId)}`];
    if (scope.queueIds !== null) parts.push(`queue_id = ANY(${param(scope.queueIds)}::uuid[])`);
    if (scope.approverId) parts.push(`approvers @> ARRAY[${param(scope.approverId)}]::uuid[]`);
    return `(${parts.join(" AND ")})`;
  });
  const conditions = [scopes.length ? `(${scopes.join(" OR ")})` : "false", `status = ANY(${param(query.statuses)}::text[])`];
  if (query.queueId) conditions.push(`queue_id = ${param(query.queueId)}`);
  if (query.workspaceId) conditions.push(`workspace_id = ${param(query.workspaceId)}`);
  if (query.q) conditions.push(`search_text LIKE ${param(likePattern(query.q))}`);
  if (query.createdFrom) conditions.push(`created_at >= ${param(query.createdFrom)}`);
  if (query.createdBefore) conditions.push(`created_at < ${param(query.createdBefore)}`);
  if (query.updatedSince) conditions.push(`updated_at >= ${param(query.updatedSince)}`);
  if (query.approverId) conditions.push(`approvers @> ARRAY[${param(query.approverId)}]::uuid[]`);
  return { filter: conditions.join(" AND "), bind };
}

/** Another document (not deleted, same organization) that a document may duplicate, and why. */
export interface DuplicateMatch {
  id: string;
  queueId: string;
  organizationId: string;
  approvers: string[];
  sameInvoice: boolean;
  sameFile: boolean;
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

  /** The duplicate keys (supplier_key, invoice_key) follow the annotations on every write. */
  async insert(
    tx: Tx,
    document: Omit<StoredDocument, "version" | "createdAt" | "updatedAt" | "source" | "automationBlockers" | "externalId" | "exports"> & {
      source?: DocumentSource;
      sourceKey?: string;
    },
  ): Promise<StoredDocument> {
    const keys = duplicateKeysOf(document.annotations);
    const inserted = await this.sql.one<StoredDocument>(
      `INSERT INTO documents (id, queue_id, workspace_id, organization_id, file_name, status, annotations, messages, options, approvers,
         confidence, file_sha256, supplier_key, invoice_key, file_content_type, file_size, source, source_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9::jsonb, $10::uuid[], $11, $12, $13, $14, $15, $16, $17::jsonb, $18)
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
        document.fileSha256,
        keys.supplierKey,
        keys.invoiceKey,
        document.fileContentType,
        document.fileSize,
        JSON.stringify(document.source ?? { channel: "api" }),
        document.sourceKey ?? null,
      ],
      tx,
    );
    if (!inserted) throw new Error("INSERT ... RETURNING returned no row");
    return inserted;
  }

  /** The document a channel made under `sourceKey` in the queue (a retried mail's attachment), if any. */
  findBySourceKey(queueId: string, sourceKey: string, tx?: Tx): Promise<StoredDocument | undefined> {
    return this.sql.one<StoredDocument>(
      `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE queue_id = $1 AND source_key = $2`,
      [queueId, sourceKey],
      tx,
    );
  }

  /** With `lock`, the row stays locked until `tx` ends: the writers of one document take turns. */
  find(id: string, tx?: Tx, lock = false): Promise<StoredDocument | undefined> {
    return this.sql.one<StoredDocument>(lock ? FIND_FOR_UPDATE : FIND, [id], tx);
  }

  /** Writes `next` as version `previousVersion + 1`; fails if someone else wrote in between. */
  async update(tx: Tx, next: StoredDocument, previousVersion: number): Promise<StoredDocument> {
    const keys = duplicateKeysOf(next.annotations);
    const updated = await this.sql.one<StoredDocument>(
      UPDATE,
      [
        next.id,
        previousVersion,
        next.status,
        JSON.stringify(next.annotations),
        JSON.stringify(next.messages),
        JSON.stringify(next.options),
        next.approvers,
        next.confidence,
        keys.supplierKey,
        keys.invoiceKey,
        next.approval === null ? null : JSON.stringify(next.approval),
        JSON.stringify(next.automationBlockers),
      ],
      tx,
    );
    if (!updated) throw new Error(`document ${next.id} changed under a lock (expected version ${previousVersion})`);
    return updated;
  }

  /**
   * Replaces what the last extraction evaluation said, without a new version: the verdict is about the document,
   * not a change of it, and bumping the version would make the changes based on it (learning's, a validator's) conflict.
   */
  async setAutomationBlockers(tx: Tx, id: string, blockers: AutomationBlocker[]): Promise<StoredDocument | undefined> {
    return this.sql.one<StoredDocument>(
      `UPDATE documents SET automation_blockers = $2::jsonb, updated_at = now() WHERE id = $1 RETURNING ${DOCUMENT_COLUMNS}`,
      [id, JSON.stringify(blockers)],
      tx,
    );
  }

  async list(query: DocumentQuery): Promise<{ items: StoredDocument[]; total: number }> {
    const { filter, bind } = listFilter(query);
    const [items, counted] = await Promise.all([
      this.sql.rows<StoredDocument>(
        `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE ${filter} ORDER BY ${ORDER_BY[query.sort]}
         LIMIT $${bind.length + 1} OFFSET $${bind.length + 2}`,
        [...bind, query.limit, query.offset],
      ),
      this.sql.one<{ total: string }>(`SELECT count(*) AS total FROM documents WHERE ${filter}`, bind),
    ]);
    return { items, total: Number(counted?.total ?? 0) };
  }

  /** How many documents of the queue are in each status (only those `approverId` approves, when given). */
  async countByStatus(queueId: string, approverId?: string): Promise<Map<DocumentStatus, number>> {
    const rows = await this.sql.rows<{ status: DocumentStatus; count: string }>(
      `SELECT status, count(*) AS count FROM documents
       WHERE queue_id = $1 AND ($2::uuid IS NULL OR approvers @> ARRAY[$2::uuid])
       GROUP BY status`,
      [queueId, approverId ?? null],
    );
    return new Map(rows.map((row) => [row.status, Number(row.count)]));
  }

  /**
   * The other documents each of `ids` may duplicate, oldest first: same organization, not deleted, and the same
   * supplier and invoice id or the same file. A deleted document duplicates nothing. Each branch is one probe of
   * its partial index (documents_same_invoice, documents_same_file).
   */
  async findDuplicates(ids: string[]): Promise<Map<string, DuplicateMatch[]>> {
    const found = new Map<string, DuplicateMatch[]>();
    if (ids.length === 0) return found;
    const rows = await this.sql.rows<DuplicateMatch & { documentId: string; sameInvoice: boolean; sameFile: boolean }>(
      `SELECT document_id AS "documentId", id, queue_id AS "queueId", organization_id AS "organizationId", approvers::text[] AS approvers,
              bool_or(same_invoice) AS "sameInvoice", bool_or(same_file) AS "sameFile"
       FROM (
         SELECT d.id AS document_id, o.id, o.queue_id, o.organization_id, o.approvers, o.created_at, true AS same_invoice, false AS same_file
         FROM documents d
         JOIN documents o ON o.organization_id = d.organization_id AND o.supplier_key = d.supplier_key AND o.invoice_key = d.invoice_key
           AND o.status <> 'deleted' AND o.id <> d.id
         WHERE d.id = ANY($1::uuid[]) AND d.status <> 'deleted'
         UNION ALL
         SELECT d.id, o.id, o.queue_id, o.organization_id, o.approvers, o.created_at, false, true
         FROM documents d
         JOIN documents o ON o.organization_id = d.organization_id AND o.file_sha256 = d.file_sha256
           AND o.status <> 'deleted' AND o.id <> d.id
         WHERE d.id = ANY($1::uuid[]) AND d.status <> 'deleted'
       ) matches
       GROUP BY document_id, id, queue_id, organization_id, approvers, created_at
       ORDER BY document_id, created_at, id`,
      [ids],
    );
    for (const { documentId, ...match } of rows) {
      const list = found.get(documentId) ?? [];
      list.push(match);
      found.set(documentId, list);
    }
    return found;
  }

  /**
   * Serialises uploads of one file within an organization until `tx` ends, so that a queue rejecting duplicate files
   * cannot let two concurrent uploads of it both in.
   */
  async lockFile(tx: Tx, organizationId: string, fileSha256: string): Promise<void> {
    await this.sql.rows(
      `SELECT pg_advisory_xact_lock(hashtextextended($1, 0)) IS NULL AS locked`,
      [`file:${organizationId}:${fileSha256}`],
      tx,
    );
  }

  /** The oldest document of the organization (not deleted) uploaded with this file. */
  findByFile(tx: Tx, organizationId: string, fileSha256: string): Promise<DuplicateMatch | undefined> {
    return this.sql.one<DuplicateMatch>(
      `SELECT id, queue_id AS "queueId", organization_id AS "organizationId", approvers::text[] AS approvers,
              false AS "sameInvoice", true AS "sameFile"
       FROM documents WHERE organization_id = $1 AND file_sha256 = $2 AND status <> 'deleted'
       ORDER BY created_at, id LIMIT 1`,
      [organizationId, fileSha256],
      tx,
    );
  }

  async recordChange(tx: Tx, change: ChangeRecord): Promise<void> {
    await this.sql.run(
      RECORD_CHANGE,
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

  /**
   * Up to `limit` documents deleted before `deletedBefore` whose file is still kept, oldest first: what the retention
   * sweep purges next.
   */
  async filesToPurge(deletedBefore: Date, limit: number): Promise<string[]> {
    const rows = await this.sql.rows<{ id: string }>(
      `SELECT id FROM documents WHERE status = 'deleted' AND file_size IS NOT NULL AND deleted_at < $1 ORDER BY deleted_at LIMIT $2`,
      [deletedBefore, limit],
    );
    return rows.map((row) => row.id);
  }

  /** The document no longer has a file (its bytes are gone from the store); the hash stays for the audit trail. */
  async forgetFile(id: string): Promise<void> {
    await this.sql.rows("UPDATE documents SET file_size = NULL, file_content_type = NULL WHERE id = $1 RETURNING id", [id]);
  }
}
