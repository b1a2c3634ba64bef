import { ConflictError, NotFoundError } from "@docex/kit";
import type { AuthUser, UserDirectory } from "../clients/auth.js";
import type { MembershipStore, Organization, Tx } from "../store/membership-store.js";
import { organizationNotFound } from "./membership-errors.js";
import { membershipChanged } from "./membership-events.js";
import type { RequestContext } from "./organizations.js";
import { type PlannedChange, planRoleChanges, type RoleOperation } from "./role-plan.js";
import { type Grant, isEffective } from "./roles.js";
import type { QueueDirectory } from "./user-schemas.js";

function sameQueues(a: string[] | null, b: string[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((queueId) => b.includes(queueId));
}

/**
 * POST assign-roles: the batch is planned whole against the members as they are under the organization's
 * row lock, then applied in the same transaction, so one bad entry changes nothing and two batches never
 * interleave. Invitations go to auth inside that transaction, after the plan is accepted: a failing auth
 * rolls everything back. If the commit itself fails after auth was asked, auth holds an invited user with
 * no membership here, which the next invite completes.
 */
export class RoleAssignment {
  constructor(
    private readonly store: MembershipStore,
    private readonly directory: UserDirectory,
    private readonly queues: QueueDirectory,
  ) {}

  async apply(organization: Organization, callerId: string, operations: RoleOperation[], ctx: RequestContext): Promise<void> {
    const usersByEmail = await this.usersInvited(operations, ctx);
    await this.store.transaction(async (tx) => {
      await this.store.lockOrganization(tx, organization.id);
      const members = new Map((await this.store.members(organization.id, tx)).map((member) => [member.userId, member as Grant]));
      const caller = members.get(callerId);
      if (!caller || !isEffective(caller)) throw organizationNotFound();
      const changes = planRoleChanges(caller, members, operations, usersByEmail);
      await this.requireQueuesOf(organization, operations, ctx);
      for (const change of changes) await this.applyChange(tx, organization, caller, members, change, ctx);
    });
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
    ctx: RequestContext,
  ): Promise<void> {
    const event = (userId: string, before: Grant | undefined, after: Grant | undefined) =>
      this.store.addEvents(tx, [membershipChanged({ organizationId: organization.id, userId, before, after }, ctx)]);
    const invitation = { email: "", organizationId: organization.id, organizationName: organization.name, invitedBy: caller.userId };

    switch (change.kind) {
      case "invite": {
        const { userId, created } = await this.directory.invite({ ...invitation, email: change.email }, ctx);
        if (members.has(userId)) {
          // auth learned the email between our lookup and the invitation, and it is a member's.
          throw new ConflictError(`Entry ${change.index}: this user is already a member. Nothing was changed.`, "membership_conflict", [
            { path: `${change.index}.email`, message: "This user is already a member; change their role with set_role." },
          ]);
        }
        const known = change.knownUser ?? (created ? undefined : await this.directory.get(userId, ctx));
        const status = created ? "invited" : (known?.status ?? "invited");
        const grant: Grant = { userId, role: change.after.role, queueIds: change.after.queueIds, status };
        await this.store.insertMembership(tx, organization.id, grant);
        await this.store.saveProfile(tx, {
          userId,
          email: known?.email ?? change.email,
          name: known?.name ?? null,
          authStatus: status,
          refreshed: true,
        });
        members.set(userId, grant);
        await event(userId, undefined, grant);
        return;
      }
      case "reinvite": {
        await this.directory.invite({ ...invitation, email: change.email }, ctx);
        await this.update(tx, organization, change.before, change.after, event);
        return;
      }
      case "update":
        await this.update(tx, organization, change.before, change.after, event);
        return;
      case "remove":
        await this.store.deleteMembership(tx, organization.id, change.before.userId);
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
    await this.store.updateMembership(tx, organization.id, after);
    await event(after.userId, before, after);
  }
}
