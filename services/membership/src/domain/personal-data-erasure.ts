import { createEvent, type DocexEvent } from "@docex/events";
import { ConflictError, ForbiddenError, NotFoundError } from "@docex/kit/errors";
import { isUuid } from "@docex/kit/ids";
import type { MembershipStore, Organization, Tx } from "../store/membership-store.js";
import { statusChanged } from "./membership-events.js";
import type { RequestContext } from "./organizations.js";
import type { Grant } from "./roles.js";

/**
 * Erasure of a person's personal data as membership holds it: the membership stays (its shape, for the audit log and
 * for whoever reads what the person did), deactivated, without the invited email, and lists no email or name.
 */
export class PersonalDataErasure {
  constructor(private readonly store: MembershipStore) {}

  /**
   * An owner erases what their organization holds of a member. When the person belongs to no other organization their
   * account goes too (`account_erased`: auth erases it); otherwise their account and other organizations keep their
   * data, which is not this organization's to erase. An owner is not erased (the organization keeps its owners: change
   * their role first).
   */
  async eraseMember(visible: { organization: Organization; caller: Grant }, userId: string, ctx: RequestContext): Promise<void> {
    const { organization, caller } = visible;
    if (caller.role !== "owner") throw new ForbiddenError(`Your role (${caller.role}) does not allow erasing a member's personal data.`);
    await this.store.transaction(async (tx) => {
      await this.store.organizations.lockOrganization(tx, organization.id);
      const member = isUuid(userId) ? await this.store.memberships.findGrant(organization.id, userId, tx) : undefined;
      if (!member) throw new NotFoundError("No member of this organization has this user id.", "member_not_found");
      if (member.role === "owner") {
        throw new ConflictError(
          "An owner's personal data is erased once they are no longer an owner: change their role first.",
          "owner_membership",
        );
      }
      const accountErased = (await this.store.memberships.membershipsElsewhere(tx, userId, organization.id)) === 0;
      const events: DocexEvent[] = await this.erase(tx, userId, organization.id, ctx);
      if (accountErased) await this.store.profiles.eraseProfile(tx, userId);
      events.push(
        createEvent("member.personal_data_erased", {
          organization_id: organization.id,
          data: { organization_id: organization.id, user_id: userId, account_erased: accountErased },
          ...origin(ctx),
        }),
      );
      await this.store.events.add(tx, ...events);
    });
  }

  /** `user.personal_data_erased` (the person erased their account): every membership of theirs, once. */
  async onUserErased(event: DocexEvent<"user.personal_data_erased">, consumer: string): Promise<void> {
    await this.store.transaction(async (tx) => {
      if (!(await this.store.claimEvent(tx, consumer, event.id))) return;
      const ctx = { ...(event.request_id ? { requestId: event.request_id } : {}), actorUserId: event.data.user_id };
      await this.store.profiles.eraseProfile(tx, event.data.user_id);
      await this.store.events.add(tx, ...(await this.erase(tx, event.data.user_id, undefined, ctx)));
    });
  }

  /** Erases the memberships and answers `membership.changed` for each that lost its access (permission caches). */
  private async erase(tx: Tx, userId: string, organizationId: string | undefined, ctx: RequestContext) {
    const before = await this.store.memberships.eraseMemberships(tx, userId, organizationId);
    return before.filter((grant) => grant.status !== "deactivated").map((grant) => statusChanged({ ...grant, status: "deactivated" }, ctx));
  }
}

function origin(ctx: RequestContext) {
  return {
    ...(ctx.requestId ? { request_id: ctx.requestId } : {}),
    ...(ctx.actorUserId === undefined ? {} : { actor_user_id: ctx.actorUserId }),
  };
}
