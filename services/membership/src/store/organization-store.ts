import type { Tx } from "@docex/kit/db";
import { isUuid } from "@docex/kit/ids";
import { TableStore } from "./table-store.js";

export interface Organization {
  id: string;
  humanizedId: string;
  name: string;
  createdAt: Date;
}

interface OrganizationRow {
  id: string;
  humanized_id: string;
  name: string;
  created_at: Date;
}

function organizationOf(row: OrganizationRow): Organization {
  return { id: row.id, humanizedId: row.humanized_id, name: row.name, createdAt: row.created_at };
}

const ORGANIZATION_COLUMNS = "o.id, o.humanized_id, o.name, o.created_at";

/** The organizations table. */
export class OrganizationStore extends TableStore {
  /** By UUID or humanized id. */
  async findOrganization(ref: string, tx?: Tx): Promise<Organization | undefined> {
    const column = isUuid(ref) ? "o.id = $1::uuid" : "o.humanized_id = $1";
    const [row] = await this.select<OrganizationRow>(`SELECT ${ORGANIZATION_COLUMNS} FROM organizations o WHERE ${column}`, [ref], tx);
    return row && organizationOf(row);
  }

  async findOrganizationByIdempotencyKey(key: string, tx?: Tx): Promise<Organization | undefined> {
    const [row] = await this.select<OrganizationRow>(
      `SELECT ${ORGANIZATION_COLUMNS} FROM organizations o WHERE o.idempotency_key = $1`,
      [key],
      tx,
    );
    return row && organizationOf(row);
  }

  /** Locks the organization row: changes of its memberships happen one at a time. */
  async lockOrganization(tx: Tx, organizationId: string): Promise<void> {
    await this.select("SELECT id FROM organizations WHERE id = $1 FOR UPDATE", [organizationId], tx);
  }

  /** Humanized ids equal to `base` or of the form `base-<n>`. */
  async humanizedIdsLike(base: string, tx: Tx): Promise<string[]> {
    const rows = await this.select<{ humanized_id: string }>(
      "SELECT humanized_id FROM organizations WHERE humanized_id = $1 OR humanized_id ~ ('^' || $2 || '-[0-9]+$')",
      [base, base.replace(/[^a-z0-9-]/g, "")],
      tx,
    );
    return rows.map((row) => row.humanized_id);
  }

  /** Inserts unless the humanized id or the idempotency key is taken; undefined then. */
  async renameOrganization(tx: Tx, id: string, name: string): Promise<Organization | undefined> {
    const [row] = await this.select<OrganizationRow>(
      `UPDATE organizations AS o SET name = $2 WHERE o.id = $1 RETURNING ${ORGANIZATION_COLUMNS}`,
      [id, name],
      tx,
    );
    return row && organizationOf(row);
  }

  async insertOrganization(
    tx: Tx,
    organization: { id: string; humanizedId: string; name: string; idempotencyKey: string | null },
  ): Promise<Organization | undefined> {
    const [row] = await this.select<OrganizationRow>(
      `INSERT INTO organizations AS o (id, humanized_id, name, idempotency_key) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING ${ORGANIZATION_COLUMNS}`,
      [organization.id, organization.humanizedId, organization.name, organization.idempotencyKey],
      tx,
    );
    return row && organizationOf(row);
  }

  /** Organizations where the user's membership is active (accepted, not deactivated), oldest first. */
  /**
   * `includeDeactivated`: every accepted membership (active or deactivated), as the audit log files logins; never a
   * pending invitation, which would tell the inviter whether the email is registered.
   */
  async organizationsOfUser(
    userId: string,
    page?: { offset: number; limit: number },
    includeDeactivated = false,
  ): Promise<{ organizations: Organization[]; total: number }> {
    const status = includeDeactivated ? "m.status <> 'invited'" : "m.status = 'active'";
    const where = `FROM organizations o JOIN memberships m ON m.organization_id = o.id WHERE m.user_id = $1 AND ${status}`;
    const bind: unknown[] = [userId];
    const paging = page ? ` LIMIT $2 OFFSET $3` : "";
    if (page) bind.push(page.limit, page.offset);
    const [rows, [count]] = await Promise.all([
      this.select<OrganizationRow>(`SELECT ${ORGANIZATION_COLUMNS} ${where} ORDER BY o.created_at, o.id${paging}`, bind),
      this.select<{ total: string }>(`SELECT count(*) AS total ${where}`, [userId]),
    ]);
    return { organizations: rows.map(organizationOf), total: Number(count?.total ?? 0) };
  }
}
