import { NotFoundError } from "@docex/kit/errors";
import type { MembershipStore, Organization } from "../store/membership-store.js";
import { membershipChanged } from "./membership-events.js";
import type { RequestContext } from "./organizations.js";

export interface Acceptance {
  organizationId: string;
  userId: string;
  /** What auth knows of the user; kept as the member's profile from now on. */
  email: string;
  name: string | null;
}

/**
 * AcceptInvitation: the invitee's consent, relayed by auth once the holder of the mailed token accepted. The pending
 * membership becomes active under the organization's lock, the profile is kept, and `membership.changed` (status
 * active) goes out through the outbox in the same transaction. Accepting twice changes nothing.
 */
export class InvitationAcceptance {
  constructor(private readonly store: MembershipStore) {}

  async accept(acceptance: Acceptance, ctx: RequestContext): Promise<{ organization: Organization; accepted: boolean }> {
    return this.store.transaction(async (tx) => {
      const organization = await this.store.organizations.findOrganization(acceptance.organizationId, tx);
      if (!organization) throw invitationNotFound();
      await this.store.organizations.lockOrganization(tx, organization.id);
      const outcome = await this.store.memberships.acceptInvitation(tx, organization.id, acceptance.userId);
      if (!outcome) throw invitationNotFound();
      if (!outcome.accepted) return { organization, accepted: false };
      await this.store.profiles.saveProfile(tx, {
        userId: acceptance.userId,
        email: acceptance.email,
        name: acceptance.name,
        refreshed: true,
      });
      await this.store.events.add(
        tx,
        membershipChanged(
          { organizationId: organization.id, userId: acceptance.userId, before: outcome.grant, after: outcome.grant },
          { ...ctx, actorUserId: acceptance.userId },
        ),
      );
      return { organization, accepted: true };
    });
  }
}

function invitationNotFound(): NotFoundError {
  return new NotFoundError("There is no open invitation of this user to this organization.", "invitation_not_found");
}
