import { ConflictError, NotFoundError, RateLimitedError } from "@docex/kit/errors";
import type { Member, MembershipStore, Organization, Tx } from "../store/membership-store.js";
import type { DocumentPort } from "./document-port.js";
import { organizationNotFound } from "./membership-errors.js";
import { membershipChanged } from "./membership-events.js";
import type { RequestContext } from "./organizations.js";
import { type PlannedChange, planRoleChanges, type RoleOperation } from "./role-plan.js";
import { type Grant, isEffective } from "./roles.js";
import type { AuthUser, UserDirectory } from "./user-directory.js";

function sameQueues(a: string[] | null, b: string[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((queueId) => b.includes(queueId));
}

export interface InvitationPolicy {
  /** How long an invitation (and its mailed token) can be accepted. */
  ttlDays: number;
  /** Pending, unexpired invitations an organization may have; a batch that would exceed it is 409. */
  maxPending: number;
  /** Invitations (invite and invite again) an organization may send per rolling 24 hours; beyond, 429. */
  maxPerDay: number;
}

export const DEFAULT_INVITATION_POLICY: InvitationPolicy = { ttlDays: 7, maxPending: 50, maxPerDay: 100 };

const DAY_MS = 24 * 3600 * 1000;

/**
 * POST assign-roles: the batch is planned whole against the members as they are under the organization's
 * row lock, then applied in the same transaction, so one bad entry changes nothing and two batches never
 * interleave. Invitations go to auth inside that transaction, after the plan is accepted: a failing auth
 * rolls everything back. If the commit itself fails after auth was asked, auth holds an invited user with
 * no membership here, which the next invite completes.
 *
 * An invitation looks the same whatever the email: the membership is `invited` with the email as typed and no
 * name until its user accepts (AcceptInvitation), and the same calls are made whether or not auth knew the email.
 * The quotas are checked under the lock before auth is asked, so a refused batch mails nothing.
 */
export class RoleAssignment {
  constructor(
    private readonly store: MembershipStore,
    private readonly directory: UserDirectory,
    private readonly queues: DocumentPort,
    private readonly policy: InvitationPolicy = DEFAULT_INVITATION_POLICY,
  ) {}

  async apply(organization: Organization, callerId: string, operations: RoleOperation[], ctx: RequestContext): Promise<void> {
    const usersByEmail = await this.usersInvited(operations, ctx);
    await this.store.transaction(async (tx) => {
      await this.store.organizations.lockOrganization(tx, organization.id);
      const current = await this.store.memberships.members(organization.id, tx);
      const members = new Map(current.map((member) => [member.userId, member as Grant]));
      const caller = members.get(callerId);
      if (!caller || !isEffective(caller)) throw organizationNotFound();
      const changes = planRoleChanges(caller, members, operations, usersByEmail);
      await this.requireQueuesOf(organization, operations, ctx);
      const now = new Date();
      const sends = await this.checkQuotas(tx, organization, current, changes, now);
      const expiresAt = new Date(now.getTime() + this.policy.ttlDays * DAY_MS);
      for (const change of changes) await this.applyChange(tx, organization, caller, members, change, expiresAt, ctx);
      await this.store.memberships.recordInvitationsSent(tx, organization.id, sends, now, new Date(now.getTime() - DAY_MS));
    });
  }

  /**
   * The organization's invitation quotas, against the batch as planned: 409 `invitation_quota_exceeded` when it
   * would leave more than `maxPending` pending invitations (expired ones do not count; removing one frees its
   * place), 429 with Retry-After when it would send more than `maxPerDay` in 24 hours. Answers how many it sends.
   */
  private async checkQuotas(tx: Tx, organization: Organization, current: Member[], changes: PlannedChange[], now: Date): Promise<number> {
    const pending = new Set(
      current
        .filter((member) => member.status === "invited" && member.invitationExpiresAt && member.invitationExpiresAt > now)
        .map((member) => member.userId),
    );
    const before = pending.size;
    let added = 0;
    let sends = 0;
    for (const change of changes) {
      if (change.kind === "invite") {
        added += 1;
        sends += 1;
      } else if (change.kind === "reinvite") {
        if (!pending.has(change.before.userId)) added += 1;
        pending.add(change.before.userId);
        sends += 1;
      } else if (change.kind === "remove") {
        pending.delete(change.before.userId);
      }
    }
    const after = pending.size + changes.filter((change) => change.kind === "invite").length;
    if (added > 0 && after > this.policy.maxPending && after > before) {
      throw new ConflictError(
        `The organization would have ${after} pending invitations; at most ${this.policy.maxPending} may wait for acceptance. ` +
          "Nothing was changed: withdraw (remove) some or wait until they are accepted or expire.",
        "invitation_quota_exceeded",
        [],
        { pending: before, limit: this.policy.maxPending },
      );
    }
    if (sends === 0) return 0;
    const sent = await this.store.memberships.invitationsSentSince(tx, organization.id, new Date(now.getTime() - DAY_MS));
    const excess = sent.length + sends - this.policy.maxPerDay;
    if (excess > 0) {
      // The batch fits once `excess` of the sent ones are older than a day; never, for a batch larger than the quota.
      const freedAt = excess <= sent.length ? sent[excess - 1]!.getTime() + DAY_MS : now.getTime() + DAY_MS;
      throw new RateLimitedError(
        (freedAt - now.getTime()) / 1000,
        `The organization sent ${sent.length} invitations in the last 24 hours; at most ${this.policy.maxPerDay} may go out per day. ` +
          "Nothing was changed.",
      );
    }
    return sends;
  }

  /**
   * Every queue named in queue_ids must be a queue of the organization: one that does not exist, or is another
   * organization's, answers 404 like an unknown id anywhere else, and nothing changes. Asked once the plan is
   * accepted (a bad or forbidden entry answers 400 or 403 first), under the lock like the invitations.
   */
  private async requireQueuesOf(organization: Organization, operations: RoleOperation[], ctx: RequestContext): Promise<void> {
    const named = [...new Set(operations.flatMap((op) => (op.operation === "remove" ? [] : (op.queueIds ?? []))))];
    const known = await Promise.all(named.map((queueId) => this.queues.queueIn(organization.id, queueId, ctx)));
    const unknown = named.filter((_, i) => !known[i]);
    if (unknown.length > 0) throw new NotFoundError(`Queue ${unknown.join(", ")} does not exist.`, "queue_not_found");
  }

  /** Which invited emails auth already knows; an email it does not know becomes a new user on invitation. */
  private async usersInvited(operations: RoleOperation[], ctx: RequestContext): Promise<Map<string, AuthUser>> {
    const emails = [...new Set(operations.flatMap((op) => (op.operation === "invite" ? [op.email.toLowerCase()] : [])))];
    const found = await Promise.all(emails.map((email) => this.directory.findByEmail(email, ctx)));
    const users = new Map<string, AuthUser>();
    emails.forEach((email, i) => {
      const user = found[i];
      if (user) users.set(email, user);
    });
    return users;
  }

  private async applyChange(
    tx: Tx,
    organization: Organization,
    caller: Grant,
    members: Map<string, Grant>,
    change: PlannedChange,
    expiresAt: Date,
    ctx: RequestContext,
  ): Promise<void> {
    const event = (userId: string, before: Grant | undefined, after: Grant | undefined) =>
      this.store.events.add(tx, membershipChanged({ organizationId: organization.id, userId, before, after }, ctx));
    const invitation = {
      email: "",
      organizationId: organization.id,
      organizationName: organization.name,
      invitedBy: caller.userId,
      expiresAt,
    };

    switch (change.kind) {
      case "invite": {
        // The same call whether or not auth knows the email: auth mails a token either way.
        const { userId } = await this.directory.invite({ ...invitation, email: change.email }, ctx);
        if (members.has(userId)) {
          // auth learned the email between our lookup and the invitation, and it is a member's.
          throw new ConflictError(`Entry ${change.index}: this user is already a member. Nothing was changed.`, "membership_conflict", [
            { path: `${change.index}.email`, message: "This user is already a member; change their role with set_role." },
          ]);
        }
        const grant: Grant = { userId, role: change.after.role, queueIds: change.after.queueIds, status: "invited" };
        await this.store.memberships.insertInvitation(tx, organization.id, { ...grant, email: change.email, expiresAt });
        members.set(userId, grant);
        await event(userId, undefined, grant);
        return;
      }
      case "reinvite": {
        await this.directory.invite({ ...invitation, email: change.email }, ctx);
        await this.store.memberships.renewInvitation(tx, organization.id, change.before.userId, expiresAt);
        await this.update(tx, organization, change.before, change.after, event);
        return;
      }
      case "update":
        await this.update(tx, organization, change.before, change.after, event);
        return;
      case "remove":
        await this.store.memberships.deleteMembership(tx, organization.id, change.before.userId);
        await event(change.before.userId, change.before, undefined);
        return;
    }
  }

  private async update(
    tx: Tx,
    organization: Organization,
    before: Grant,
    after: Grant,
    event: (userId: string, before: Grant | undefined, after: Grant | undefined) => Promise<void>,
  ): Promise<void> {
    if (before.role === after.role && sameQueues(before.queueIds, after.queueIds)) return;
    await this.store.memberships.updateMembership(tx, organization.id, after);
    await event(after.userId, before, after);
  }
}
