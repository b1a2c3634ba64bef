import type { Tx } from "@docex/kit/db";
import type { Grant, MembershipStatus, Role } from "../domain/roles.js";
import { TableStore } from "./table-store.js";

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

export interface StatusChange {
  organizationId: string;
  role: Role;
  queueIds: string[] | null;
  previousStatus: MembershipStatus;
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

function grantOf(row: GrantRow): Grant {
  return { userId: row.user_id, role: row.role, queueIds: row.queue_ids, status: row.status };
}

// uuid[] comes back as text[], which the driver parses into an array.
const GRANT_COLUMNS = "m.user_id, m.role, m.queue_ids::text[] AS queue_ids, m.status";

/** Memberships (pending invitations are memberships of status `invited`) and the invitations mailed. */
export class MemberStore extends TableStore {
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
}
