import type { Sql, Tx } from "@docex/kit";
import type { EntityRef } from "../domain/humanized-id.js";
import type { OrganizationRef, Queue, Workspace } from "../domain/records.js";

const WORKSPACE_COLUMNS = `id, humanized_id AS "humanizedId", organization_id AS "organizationId", name, created_at AS "createdAt"`;
const QUEUE_COLUMNS = `id, humanized_id AS "humanizedId", workspace_id AS "workspaceId", organization_id AS "organizationId", name,
  annotation_schema AS "annotationSchema", duplicate_file_rejection AS "duplicateFileRejection",
  extraction_engine AS "extractionEngine", created_at AS "createdAt"`;

function where(ref: EntityRef): { clause: string; value: string } {
  return "id" in ref ? { clause: "id = $1", value: ref.id } : { clause: "humanized_id = $1", value: ref.humanizedId };
}

const MAX_CACHED_QUEUES = 10_000;

/** Organizations (as seen from membership), workspaces and queues. */
export class HierarchyStore {
  /**
   * Queues by id. A queue never changes once created (no endpoint changes its name or schema), so every edit and
   * every change of a document reads its queue from here instead of the database.
   */
  private readonly queuesById = new Map<string, Queue>();

  constructor(private readonly sql: Sql) {}

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

  findWorkspace(ref: EntityRef): Promise<Workspace | undefined> {
    const { clause, value } = where(ref);
    return this.sql.one<Workspace>(`SELECT ${WORKSPACE_COLUMNS} FROM workspaces WHERE ${clause}`, [value]);
  }

  /** Undefined when the humanized id is taken. */
  insertQueue(tx: Tx, queue: Omit<Queue, "createdAt">): Promise<Queue | undefined> {
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
      if (this.queuesById.size >= MAX_CACHED_QUEUES) this.queuesById.clear();
      this.queuesById.set(queue.id, queue);
    }
    return queue;
  }
}
