import { BoundedCache } from "@docex/kit/cache";
import type { Sql, Tx } from "@docex/kit/db";
import type { EntityRef } from "../domain/humanized-id.js";
import type { OrganizationRef, Queue, Workspace } from "../domain/records.js";
import type { QueueValidators } from "../domain/validation.js";
import { ValidatorStore } from "./validator-store.js";

const WORKSPACE_COLUMNS = `id, humanized_id AS "humanizedId", organization_id AS "organizationId", name, created_at AS "createdAt"`;
const QUEUE_COLUMNS = `id, humanized_id AS "humanizedId", workspace_id AS "workspaceId", organization_id AS "organizationId", name,
  annotation_schema AS "annotationSchema", duplicate_file_rejection AS "duplicateFileRejection",
  extraction_engine AS "extractionEngine", document_lifetime_days AS "documentLifetimeDays", inbox_token AS "inboxToken",
  inbox_allowed_senders AS "inboxAllowedSenders", learn_from_validation AS "learnFromValidation", created_at AS "createdAt"`;

function where(ref: EntityRef): { clause: string; value: string } {
  return "id" in ref ? { clause: "id = $1", value: ref.id } : { clause: "humanized_id = $1", value: ref.humanizedId };
}

const MAX_CACHED_QUEUES = 10_000;

/**
 * How long a queue's validators are kept without a change heard of. Changes are heard (this process's own saves,
 * and `configuration.changed` on every replica), but another replica may reload a queue in the moment between the
 * webhook service's event and this service's record of the same change: this bounds how long it can miss it.
 */
const VALIDATORS_MAX_AGE_MS = 60_000;

/** A page of a list filtered by name: `q` matches anywhere in the name, case-insensitively. */
export interface NameListQuery {
  q?: string;
  /** Null: no narrowing; otherwise only what lies within these queues (a queue-scoped member). */
  queueIds: string[] | null;
  offset: number;
  limit: number;
}

/** The queue fields PATCH /queues/{id} may change; absent ones stay. */
export interface QueueChanges {
  name?: string;
  annotationSchema?: Queue["annotationSchema"];
  duplicateFileRejection?: boolean;
  extractionEngine?: Queue["extractionEngine"];
  /** Null: documents are kept. */
  documentLifetimeDays?: number | null;
  /** Addresses and `@domain`s; empty: anyone may mail the inbox. */
  inboxAllowedSenders?: string[];
  learnFromValidation?: boolean;
}

/** `q` as a LIKE pattern matching it literally anywhere. */
function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** The filter of a name list: the parent, `q`, and a member's queues; `bind` starts with the parent's id. */
function nameFilter(parentClause: string, query: NameListQuery, queueClause: string): { filter: string; bind: unknown[] } {
  const conditions = [parentClause];
  const bind: unknown[] = [];
  if (query.q) {
    bind.push(containsPattern(query.q));
    conditions.push(`name ILIKE $${bind.length + 1}`);
  }
  if (query.queueIds !== null) {
    bind.push(query.queueIds);
    conditions.push(queueClause.replace("$Q", `$${bind.length + 1}::uuid[]`));
  }
  return { filter: conditions.join(" AND "), bind };
}

/** Organizations (as seen from membership), workspaces and queues. */
export class HierarchyStore {
  /**
   * Queues by id: every edit and every change of a document reads its queue from here instead of the database. A
   * change of a queue (PATCH, DELETE) forgets it here at once and, through `configuration.changed`, on every other
   * replica (service.ts); a lost NATS connection forgets them all.
   */
  private readonly queuesById = new BoundedCache<string, Queue>({ maxEntries: MAX_CACHED_QUEUES });
  /** The validators of the cached queues (QueueValidators), forgotten with them; read with the queue on an edit's path. */
  private readonly validatorsByQueue = new BoundedCache<string, QueueValidators>({ maxEntries: MAX_CACHED_QUEUES });
  private readonly validatorStore: ValidatorStore;

  constructor(private readonly sql: Sql) {
    this.validatorStore = new ValidatorStore(sql);
  }

  /**
   * What may validate the queue's documents (its links, and the validation webhooks of the deprecated API that
   * apply to it), kept with the cached queue: an edit reads no table for it once the queue is cached. Forgotten with
   * the queue (`forgetQueue`: a link's save, a validation webhook recorded, their configuration.changed).
   */
  async validatorsOf(queue: Queue): Promise<QueueValidators> {
    const cached = this.validatorsByQueue.get(queue.id);
    if (cached) return cached;
    const loadedAt = Date.now();
    const validators = await this.validatorStore.ofQueue(queue);
    this.validatorsByQueue.set(queue.id, validators, loadedAt + VALIDATORS_MAX_AGE_MS);
    return validators;
  }

  /**
   * Records an organization membership told us about; its humanized id follows the latest word.
   *
   * The event consumer and ResolveEntity's fallback may record the same organization at the same
   * moment. `ON CONFLICT (id) DO UPDATE` would not do: a concurrent insert of the same row trips the
   * other unique index (humanized_id) before the id conflict is seen, and the caller got a 500. So the
   * insert yields to a conflict on any unique index, and an update brings a known row up to date.
   */
  async rememberOrganization(organization: OrganizationRef): Promise<void> {
    const values = [organization.id, organization.humanizedId, organization.name];
    const inserted = await this.sql.rows(
      `INSERT INTO organizations (id, humanized_id, name) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING id`,
      values,
    );
    if (inserted.length > 0) return;
    await this.sql.rows(
      `UPDATE organizations SET humanized_id = $2, name = $3, seen_at = now()
       WHERE id = $1 AND (humanized_id, name) IS DISTINCT FROM ($2, $3)
       RETURNING id`,
      values,
    );
  }

  findOrganization(ref: EntityRef): Promise<OrganizationRef | undefined> {
    const { clause, value } = where(ref);
    return this.sql.one<OrganizationRef>(`SELECT id, humanized_id AS "humanizedId", name FROM organizations WHERE ${clause}`, [value]);
  }

  /** The humanized ids of workspaces (or queues) that are `base` or `base-<n>`: the ones a new name's slug must avoid. */
  async humanizedIdsLike(table: "workspaces" | "queues", base: string, tx?: Tx): Promise<string[]> {
    const rows = await this.sql.rows<{ humanized_id: string }>(
      `SELECT humanized_id FROM ${table} WHERE humanized_id = $1 OR humanized_id ~ ('^' || $2 || '-[0-9]+$')`,
      [base, base.replace(/[^a-z0-9-]/g, "")],
      tx,
    );
    return rows.map((row) => row.humanized_id);
  }

  /** Undefined when the humanized id is taken. */
  insertWorkspace(workspace: Omit<Workspace, "createdAt">): Promise<Workspace | undefined> {
    return this.sql.one<Workspace>(
      `INSERT INTO workspaces (id, humanized_id, organization_id, name) VALUES ($1, $2, $3, $4)
       ON CONFLICT (humanized_id) DO NOTHING RETURNING ${WORKSPACE_COLUMNS}`,
      [workspace.id, workspace.humanizedId, workspace.organizationId, workspace.name],
    );
  }

  listWorkspaces(organizationId: string, query: NameListQuery): Promise<{ items: Workspace[]; total: number }> {
    const within = "id IN (SELECT workspace_id FROM queues WHERE id = ANY($Q))";
    return this.namePage<Workspace>("workspaces", WORKSPACE_COLUMNS, { column: "organization_id", id: organizationId }, query, within);
  }

  listQueues(workspaceId: string, query: NameListQuery): Promise<{ items: Queue[]; total: number }> {
    return this.namePage<Queue>("queues", QUEUE_COLUMNS, { column: "workspace_id", id: workspaceId }, query, "id = ANY($Q)");
  }

  /** A page of `table`'s rows under one parent, oldest first, with their count; `within` narrows to a member's queues. */
  private async namePage<T extends object>(
    table: "workspaces" | "queues",
    columns: string,
    parent: { column: string; id: string },
    query: NameListQuery,
    within: string,
  ): Promise<{ items: T[]; total: number }> {
    const { filter, bind } = nameFilter(`${parent.column} = $1`, query, within);
    const all = [parent.id, ...bind];
    const [items, counted] = await Promise.all([
      this.sql.rows<T>(
        `SELECT ${columns} FROM ${table} WHERE ${filter} ORDER BY created_at, id LIMIT $${all.length + 1} OFFSET $${all.length + 2}`,
        [...all, query.limit, query.offset],
      ),
      this.sql.one<{ total: string }>(`SELECT count(*) AS total FROM ${table} WHERE ${filter}`, all),
    ]);
    return { items, total: Number(counted?.total ?? 0) };
  }

  renameWorkspace(tx: Tx, id: string, name: string): Promise<Workspace | undefined> {
    return this.sql.one<Workspace>(`UPDATE workspaces SET name = $2 WHERE id = $1 RETURNING ${WORKSPACE_COLUMNS}`, [id, name], tx);
  }

  /** The queue locked for a change in `tx`, read from the database (never the cache). */
  lockQueue(tx: Tx, id: string): Promise<Queue | undefined> {
    return this.sql.one<Queue>(`SELECT ${QUEUE_COLUMNS} FROM queues WHERE id = $1 FOR UPDATE`, [id], tx);
  }

  async updateQueue(tx: Tx, id: string, changes: QueueChanges): Promise<Queue | undefined> {
    this.forgetQueue(id);
    const updated = await this.sql.one<Queue>(
      `UPDATE queues SET name = coalesce($2, name), annotation_schema = coalesce($3::jsonb, annotation_schema),
         duplicate_file_rejection = coalesce($4, duplicate_file_rejection), extraction_engine = coalesce($5, extraction_engine),
         document_lifetime_days = CASE WHEN $6 THEN $7::integer ELSE document_lifetime_days END,
         inbox_allowed_senders = coalesce($8::text[], inbox_allowed_senders),
         learn_from_validation = coalesce($9, learn_from_validation)
       WHERE id = $1 RETURNING ${QUEUE_COLUMNS}`,
      [
        id,
        changes.name ?? null,
        changes.annotationSchema ? JSON.stringify(changes.annotationSchema) : null,
        changes.duplicateFileRejection ?? null,
        changes.extractionEngine ?? null,
        changes.documentLifetimeDays !== undefined,
        changes.documentLifetimeDays ?? null,
        changes.inboxAllowedSenders ?? null,
        changes.learnFromValidation ?? null,
      ],
      tx,
    );
    // Another request may have cached the old queue between the delete above and the commit.
    tx.afterCommit(() => {
      this.forgetQueue(id);
    });
    return updated;
  }

  /** A new inbox token for the locked queue: the old address stops with the commit. */
  async rotateInboxToken(tx: Tx, id: string, token: string): Promise<Queue | undefined> {
    this.forgetQueue(id);
    const updated = await this.sql.one<Queue>(
      `UPDATE queues SET inbox_token = $2 WHERE id = $1 RETURNING ${QUEUE_COLUMNS}`,
      [id, token],
      tx,
    );
    tx.afterCommit(() => {
      this.forgetQueue(id);
    });
    return updated;
  }

  /** The queue whose inbox is `<humanizedId>.<token>`, read from the database (a rotated token stops at once). */
  findInbox(humanizedId: string, token: string, tx?: Tx): Promise<Queue | undefined> {
    return this.sql.one<Queue>(
      `SELECT ${QUEUE_COLUMNS} FROM queues WHERE inbox_token = $1 AND humanized_id = $2`,
      [token, humanizedId],
      tx,
    );
  }

  /**
   * Locks the queues for their removal: an upload in flight holds a key-share lock on its queue (the foreign key),
   * so this waits for it and the count that follows sees its document.
   */
  async lockForRemoval(tx: Tx, queueIds: string[]): Promise<void> {
    await this.sql.rows(`SELECT id FROM queues WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`, [queueIds], tx);
  }

  /** How many documents of the queues are not `deleted`. */
  async liveDocuments(tx: Tx, queueIds: string[]): Promise<number> {
    const row = await this.sql.one<{ count: string }>(
      `SELECT count(*) AS count FROM documents WHERE queue_id = ANY($1::uuid[]) AND status <> 'deleted'`,
      [queueIds],
      tx,
    );
    return Number(row?.count ?? 0);
  }

  /**
   * Removes the queues with their (deleted) documents, the documents' trail and jobs, and the projections kept per
   * queue; answers the ids of the documents whose files are to be removed from the file store after the commit.
   */
  async removeQueues(tx: Tx, queueIds: string[]): Promise<string[]> {
    const bind = [queueIds];
    const inQueues = "SELECT id FROM documents WHERE queue_id = ANY($1::uuid[])";
    await this.sql.rows(`DELETE FROM document_changes WHERE document_id IN (${inQueues}) RETURNING 1`, bind, tx);
    await this.sql.rows(`DELETE FROM initial_validation_jobs WHERE document_id IN (${inQueues}) RETURNING 1`, bind, tx);
    const documents = await this.sql.rows<{ id: string; has_file: boolean }>(
      `DELETE FROM documents WHERE queue_id = ANY($1::uuid[]) RETURNING id, file_size IS NOT NULL AS has_file`,
      bind,
      tx,
    );
    for (const table of ["queue_validation_links", "automation_switches", "automation_switch_seeds"]) {
      await this.sql.rows(`DELETE FROM ${table} WHERE queue_id = ANY($1::uuid[]) RETURNING 1`, bind, tx);
    }
    await this.sql.rows(`DELETE FROM validation_webhooks WHERE queue_id = ANY($1::uuid[]) RETURNING 1`, bind, tx);
    await this.sql.rows(`DELETE FROM queues WHERE id = ANY($1::uuid[]) RETURNING 1`, bind, tx);
    for (const id of queueIds) this.forgetQueue(id);
    tx.afterCommit(() => {
      for (const id of queueIds) this.forgetQueue(id);
    });
    return documents.filter((document) => document.has_file).map((document) => document.id);
  }

  /** The workspace locked for its removal (a queue being created in it holds a key-share lock), with its queues. */
  async lockWorkspaceForRemoval(tx: Tx, workspaceId: string): Promise<Queue[]> {
    await this.sql.rows(`SELECT id FROM workspaces WHERE id = $1 FOR UPDATE`, [workspaceId], tx);
    return this.sql.rows<Queue>(`SELECT ${QUEUE_COLUMNS} FROM queues WHERE workspace_id = $1 ORDER BY id`, [workspaceId], tx);
  }

  async removeWorkspace(tx: Tx, workspaceId: string): Promise<void> {
    await this.sql.rows(`DELETE FROM validation_webhooks WHERE workspace_id = $1 RETURNING 1`, [workspaceId], tx);
    await this.sql.rows(`DELETE FROM workspaces WHERE id = $1 RETURNING 1`, [workspaceId], tx);
  }

  /** Forgets a cached queue: another replica changed it. Undefined forgets every queue. */
  forgetQueue(id?: string): void {
    this.queuesById.forget(id);
    this.validatorsByQueue.forget(id);
  }

  findWorkspace(ref: EntityRef): Promise<Workspace | undefined> {
    const { clause, value } = where(ref);
    return this.sql.one<Workspace>(`SELECT ${WORKSPACE_COLUMNS} FROM workspaces WHERE ${clause}`, [value]);
  }

  /** Undefined when the humanized id is taken. */
  insertQueue(
    tx: Tx,
    queue: Omit<Queue, "createdAt" | "documentLifetimeDays" | "inboxToken" | "inboxAllowedSenders" | "learnFromValidation">,
  ): Promise<Queue | undefined> {
    return this.sql.one<Queue>(
      `INSERT INTO queues (id, humanized_id, workspace_id, organization_id, name, annotation_schema, duplicate_file_rejection,
         extraction_engine)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8)
       ON CONFLICT (humanized_id) DO NOTHING RETURNING ${QUEUE_COLUMNS}`,
      [
        queue.id,
        queue.humanizedId,
        queue.workspaceId,
        queue.organizationId,
        queue.name,
        JSON.stringify(queue.annotationSchema),
        queue.duplicateFileRejection,
        queue.extractionEngine,
      ],
      tx,
    );
  }

  async findQueue(ref: EntityRef): Promise<Queue | undefined> {
    const cached = "id" in ref ? this.queuesById.get(ref.id) : undefined;
    if (cached) return cached;
    const { clause, value } = where(ref);
    const queue = await this.sql.one<Queue>(`SELECT ${QUEUE_COLUMNS} FROM queues WHERE ${clause}`, [value]);
    if (queue) {
      this.queuesById.set(queue.id, queue);
    }
    return queue;
  }
}
