import { type DocexEvent, eventSubject } from "@docex/events";
import { claimEvent, isUuid, type Outbox, type Sql, type Tx } from "@docex/kit";
import type { Grant, MembershipStatus, Role } from "../domain/roles.js";

export type { Tx };

export interface Organization {
  id: string;
  humanizedId: string;
  name: string;
  createdAt: Date;
}

export interface Member extends Grant {
  /** Of a pending invitation (status `invited`): the email as invited, never what auth knows of the user. */
  email: string | null;
  /** Null for a pending invitation, whether or not the email belongs to someone with a name. */
  name: string | null;
  /** When a pending invitation expires; null once accepted. */
  invitationExpiresAt: Date | null;
  /** When the copy of auth's data was last refreshed; null if never. */
  profileRefreshedAt: Date | null;
  createdAt: Date;
}

export interface MemberProfile {
  userId: string;
  email?: string | null;
  name?: string | null;
  authStatus?: string | null;
  /** True when the values come from auth itself (GetUser), false for what a token or an event said. */
  refreshed: boolean;
}

export interface UserSchemaField {
  key: string;
  hidden: boolean;
  readonly: boolean;
}

export interface StatusChange {
  organizationId: string;
  role: Role;
  queueIds: string[] | null;
  previousStatus: MembershipStatus;
}

interface OrganizationRow {
  id: string;
  humanized_id: string;
  name: string;
  created_at: Date;
}

interface GrantRow {
  user_id: string;
  role: Role;
  queue_ids: string[] | null;
  status: MembershipStatus;
}

interface MemberRow extends GrantRow {
  email: string | null;
  name: string | null;
  invitation_expires_at: Date | null;
  refreshed_at: Date | null;
  created_at: Date;
}

function organizationOf(row: OrganizationRow): Organization {
  return { id: row.id, humanizedId: row.humanized_id, name: row.name, createdAt: row.created_at };
}

function grantOf(row: GrantRow): Grant {
  return { userId: row.user_id, role: row.role, queueIds: row.queue_ids, status: row.status };
}

const ORGANIZATION_COLUMNS = "o.id, o.humanized_id, o.name, o.created_at";
// uuid[] comes back as text[], which the driver parses into an array.
const GRANT_COLUMNS = "m.user_id, m.role, m.queue_ids::text[] AS queue_ids, m.status";

/** Every table of the membership database; answers are plain objects. */
export class MembershipStore {
  constructor(
    private readonly sql: Sql,
    private readonly outbox: Outbox,
  ) {}

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.sql.transaction(work);
  }

  /**
   * Forgets a deleted queue (queue.deleted): its user schemas, and its id in members' queue_ids. A member left with
   * no queue keeps the membership and sees nothing until given a queue; no permission changes, so no event.
   */
  async forgetQueue(queueId: string): Promise<void> {
    await this.transaction(async (tx) => {
      await this.execute(`DELETE FROM user_schemas WHERE queue_id = $1::uuid`, [queueId], tx);
      await this.execute(
        `UPDATE memberships SET queue_ids = array_remove(queue_ids, $1::uuid) WHERE queue_ids @> ARRAY[$1::uuid]`,
        [queueId],
        tx,
      );
    });
  }

  private select<T extends object>(sql: string, bind: unknown[], tx?: Tx): Promise<T[]> {
    return this.sql.rows<T>(sql, bind, tx);
  }

  private async execute(sql: string, bind: unknown[], tx: Tx): Promise<void> {
    await this.sql.run(sql, bind, tx);
  }

  async addEvents(tx: Tx, events: DocexEvent[]): Promise<void> {
    await this.outbox.add(
      tx,
      ...events.map((event) => ({ id: event.id, subject: eventSubject(event.type), payload: event, requestId: event.request_id })),
    );
  }

  /** Records that `consumer` handled `eventId` in `tx`; false when it was handled before. */
  claimEvent(tx: Tx, consumer: string, eventId: string): Promise<boolean> {
    return claimEvent(this.sql, tx, consumer, eventId);
  }

  /** Serializes work on one key (an idempotency key) across instances, until `tx` ends. */
  async lockKey(tx: Tx, key: string): Promise<void> {
    await this.select("SELECT pg_advisory_xact_lock(hashtextextended($1, 0)) AS locked", [key], tx);
  }

  // Organizations

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

  // Memberships

  async findGrant(organizationId: string, userId: string, tx?: Tx): Promise<Grant | undefined> {
    const [row] = await this.select<GrantRow>(
      `SELECT ${GRANT_COLUMNS} FROM memberships m WHERE m.organization_id = $1 AND m.user_id = $2`,
      [organizationId, userId],
      tx,
    );
    return row && grantOf(row);
  }

  /** Every membership of the organization; a pending invitation shows its invited email and no name. */
  async members(organizationId: string, tx?: Tx): Promise<Member[]> {
    const rows = await this.select<MemberRow>(
      `SELECT ${GRANT_COLUMNS},
              CASE WHEN m.personal_data_erased_at IS NOT NULL THEN NULL
                   WHEN m.status = 'invited' THEN m.invited_email ELSE p.email END AS email,
              CASE WHEN m.status = 'invited' OR m.personal_data_erased_at IS NOT NULL THEN NULL ELSE p.name END AS name,
              m.invitation_expires_at, p.refreshed_at, m.created_at
       FROM memberships m LEFT JOIN member_profiles p ON p.user_id = m.user_id
       WHERE m.organization_id = $1 ORDER BY m.created_at, m.user_id`,
      [organizationId],
      tx,
    );
    return rows.map((row) => ({
      ...grantOf(row),
      email: row.email,
      name: row.name,
      invitationExpiresAt: row.status === "invited" ? row.invitation_expires_at : null,
      profileRefreshedAt: row.refreshed_at,
      createdAt: row.created_at,
    }));
  }

  /** A membership its user has (an organization's creator); an invitation is `insertInvitation`. */
  async insertMembership(tx: Tx, organizationId: string, grant: Grant): Promise<void> {
    await this.execute(
      `INSERT INTO memberships (organization_id, user_id, role, queue_ids, status, accepted_at)
       VALUES ($1, $2, $3, $4::uuid[], $5, now())`,
      [organizationId, grant.userId, grant.role, grant.queueIds, grant.status],
      tx,
    );
  }

  /** A pending membership (status `invited`) that grants nothing until its user accepts. */
  async insertInvitation(
    tx: Tx,
    organizationId: string,
    invitation: Pick<Grant, "userId" | "role" | "queueIds"> & { email: string; expiresAt: Date },
  ): Promise<void> {
    await this.execute(
      `INSERT INTO memberships (organization_id, user_id, role, queue_ids, status, invited_email, invitation_expires_at)
       VALUES ($1, $2, $3, $4::uuid[], 'invited', $5, $6)`,
      [organizationId, invitation.userId, invitation.role, invitation.queueIds, invitation.email, invitation.expiresAt],
      tx,
    );
  }

  /** An invitation sent again: it expires later. */
  async renewInvitation(tx: Tx, organizationId: string, userId: string, expiresAt: Date): Promise<void> {
    await this.execute(
      `UPDATE memberships SET invitation_expires_at = $3, updated_at = now()
       WHERE organization_id = $1 AND user_id = $2 AND status = 'invited'`,
      [organizationId, userId, expiresAt],
      tx,
    );
  }

  /**
   * The user accepts their pending, unexpired invitation: the membership becomes `active`. Answers the grant after
   * the change, `accepted: false` when it had been accepted before, or undefined when there is no such invitation.
   */
  async acceptInvitation(tx: Tx, organizationId: string, userId: string): Promise<{ grant: Grant; accepted: boolean } | undefined> {
    const [row] = await this.select<GrantRow & { invitation_expires_at: Date | null }>(
      `SELECT ${GRANT_COLUMNS}, m.invitation_expires_at FROM memberships m
       WHERE m.organization_id = $1 AND m.user_id = $2 FOR UPDATE`,
      [organizationId, userId],
      tx,
    );
    if (!row) return undefined;
    if (row.status !== "invited") return { grant: grantOf(row), accepted: false };
    if (!row.invitation_expires_at || row.invitation_expires_at.getTime() <= Date.now()) return undefined;
    await this.execute(
      `UPDATE memberships SET status = 'active', accepted_at = now(), invitation_expires_at = NULL, updated_at = now()
       WHERE organization_id = $1 AND user_id = $2`,
      [organizationId, userId],
      tx,
    );
    return { grant: { ...grantOf(row), status: "active" }, accepted: true };
  }

  /** When each invitation of the organization mailed since `since` went out, oldest first. */
  async invitationsSentSince(tx: Tx, organizationId: string, since: Date): Promise<Date[]> {
    const rows = await this.select<{ sent_at: Date }>(
      "SELECT sent_at FROM invitations_sent WHERE organization_id = $1 AND sent_at > $2 ORDER BY sent_at",
      [organizationId, since],
      tx,
    );
    return rows.map((row) => row.sent_at);
  }

  /** Records `count` invitations mailed at `at`, and forgets the organization's older than `forgetBefore`. */
  async recordInvitationsSent(tx: Tx, organizationId: string, count: number, at: Date, forgetBefore: Date): Promise<void> {
    await this.execute("DELETE FROM invitations_sent WHERE organization_id = $1 AND sent_at <= $2", [organizationId, forgetBefore], tx);
    if (count === 0) return;
    await this.execute(
      "INSERT INTO invitations_sent (organization_id, sent_at) SELECT $1, $2 FROM generate_series(1, $3)",
      [organizationId, at, count],
      tx,
    );
  }

  async updateMembership(tx: Tx, organizationId: string, grant: Grant): Promise<void> {
    await this.execute(
      `UPDATE memberships SET role = $3, queue_ids = $4::uuid[], status = $5, updated_at = now()
       WHERE organization_id = $1 AND user_id = $2`,
      [organizationId, grant.userId, grant.role, grant.queueIds, grant.status],
      tx,
    );
  }

  /** Removes the membership and what hangs on it (the member's user schemas in that organization). */
  async deleteMembership(tx: Tx, organizationId: string, userId: string): Promise<void> {
    await this.execute("DELETE FROM user_schemas WHERE organization_id = $1 AND user_id = $2", [organizationId, userId], tx);
    await this.execute("DELETE FROM memberships WHERE organization_id = $1 AND user_id = $2", [organizationId, userId], tx);
  }

  /**
   * Sets the status of every accepted membership of a user to `status` (`active` or `deactivated`, as the account);
   * pending invitations keep theirs. Answers the memberships that changed.
   */
  async setStatusOfUser(tx: Tx, userId: string, status: Exclude<MembershipStatus, "invited">): Promise<StatusChange[]> {
    const rows = await this.select<{ organization_id: string; role: Role; queue_ids: string[] | null; previous_status: MembershipStatus }>(
      `UPDATE memberships m SET status = $2, updated_at = now()
       FROM memberships before
       WHERE m.user_id = $1 AND m.status <> $2 AND m.status <> 'invited'
         AND before.organization_id = m.organization_id AND before.user_id = m.user_id
       RETURNING m.organization_id, m.role, m.queue_ids::text[] AS queue_ids, before.status AS previous_status`,
      [userId, status],
      tx,
    );
    return rows.map((row) => ({
      organizationId: row.organization_id,
      role: row.role,
      queueIds: row.queue_ids,
      previousStatus: row.previous_status,
    }));
  }

  /**
   * Erases what the memberships of `userId` hold of the person (in `organizationId`, or in every organization when
   * undefined): deactivated, no invited email, marked erased. Answers each membership as it was before.
   */
  async eraseMemberships(tx: Tx, userId: string, organizationId: string | undefined): Promise<Array<Grant & { organizationId: string }>> {
    const scope = organizationId === undefined ? "" : " AND m.organization_id = $2";
    const rows = await this.select<GrantRow & { organization_id: string }>(
      `UPDATE memberships m SET status = 'deactivated', invited_email = NULL, invitation_expires_at = NULL,
         personal_data_erased_at = coalesce(m.personal_data_erased_at, now()), updated_at = now()
       FROM memberships before
       WHERE m.user_id = $1${scope}
         AND before.organization_id = m.organization_id AND before.user_id = m.user_id
       RETURNING m.organization_id, before.user_id, before.role, before.queue_ids::text[] AS queue_ids, before.status`,
      organizationId === undefined ? [userId] : [userId, organizationId],
      tx,
    );
    return rows.map((row) => ({ ...grantOf(row), organizationId: row.organization_id }));
  }

  /** How many memberships (any status) the user has in organizations other than `organizationId`. */
  async membershipsElsewhere(tx: Tx, userId: string, organizationId: string): Promise<number> {
    const [row] = await this.select<{ n: string }>(
      "SELECT count(*) AS n FROM memberships WHERE user_id = $1 AND organization_id <> $2",
      [userId, organizationId],
      tx,
    );
    return Number(row?.n ?? 0);
  }

  /** Forgets the copy of auth's email and name of the person (their account was erased). */
  async eraseProfile(tx: Tx, userId: string): Promise<void> {
    await this.execute("UPDATE member_profiles SET email = NULL, name = NULL WHERE user_id = $1", [userId], tx);
  }

  // Member profiles

  /** Keeps what is given; a value left undefined keeps the stored one. */
  async saveProfile(tx: Tx | undefined, profile: MemberProfile): Promise<void> {
    const sql = `INSERT INTO member_profiles AS p (user_id, email, name, auth_status, refreshed_at)
       VALUES ($1, $2, $3, $4, CASE WHEN $5 THEN now() END)
       ON CONFLICT (user_id) DO UPDATE SET
         email = COALESCE(EXCLUDED.email, p.email),
         name = CASE WHEN $5 THEN EXCLUDED.name ELSE COALESCE(EXCLUDED.name, p.name) END,
         auth_status = COALESCE(EXCLUDED.auth_status, p.auth_status),
         refreshed_at = COALESCE(EXCLUDED.refreshed_at, p.refreshed_at)`;
    const bind = [profile.userId, profile.email ?? null, profile.name ?? null, profile.authStatus ?? null, profile.refreshed];
    await this.sql.run(sql, bind, tx);
  }

  // User schemas

  async saveUserSchema(tx: Tx, organizationId: string, userId: string, queueId: string | null, fields: UserSchemaField[]): Promise<void> {
    if (fields.length === 0) {
      await this.execute(
        "DELETE FROM user_schemas WHERE organization_id = $1 AND user_id = $2 AND queue_id IS NOT DISTINCT FROM $3::uuid",
        [organizationId, userId, queueId],
        tx,
      );
      return;
    }
    await this.execute(
      `INSERT INTO user_schemas (organization_id, user_id, queue_id, fields) VALUES ($1, $2, $3::uuid, $4::jsonb)
       ON CONFLICT (organization_id, user_id, queue_id) DO UPDATE SET fields = EXCLUDED.fields, updated_at = now()`,
      [organizationId, userId, queueId, JSON.stringify(fields)],
      tx,
    );
  }

  /** The fields of one (member, queue) pair, locked for the rest of `tx`; [] when there are none. */
  async userSchemaFor(tx: Tx, organizationId: string, userId: string, queueId: string | null): Promise<UserSchemaField[]> {
    const rows = await this.select<{ fields: UserSchemaField[] }>(
      `SELECT fields FROM user_schemas
       WHERE organization_id = $1 AND user_id = $2 AND queue_id IS NOT DISTINCT FROM $3::uuid FOR UPDATE`,
      [organizationId, userId, queueId],
      tx,
    );
    return rows[0]?.fields ?? [];
  }

  /** The organization-wide entries and, when `queueId` is given, that queue's. */
  async userSchemaLayers(
    organizationId: string,
    userId: string,
    queueId: string | null,
  ): Promise<{ organization: UserSchemaField[]; queue: UserSchemaField[] }> {
    const rows = await this.select<{ queue_id: string | null; fields: UserSchemaField[] }>(
      `SELECT queue_id, fields FROM user_schemas
       WHERE organization_id = $1 AND user_id = $2 AND (queue_id IS NULL OR queue_id = $3::uuid)`,
      [organizationId, userId, queueId],
    );
    return {
      organization: rows.find((row) => row.queue_id === null)?.fields ?? [],
      queue: queueId === null ? [] : (rows.find((row) => row.queue_id !== null)?.fields ?? []),
    };
  }
}
