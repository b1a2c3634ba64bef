import type { Member, MembershipStore, Organization } from "../store/membership-store.js";
import type { MemberProfiles } from "./member-profiles.js";
import type { RequestContext } from "./organizations.js";
import { type Grant, mayManage, mayView } from "./roles.js";

export interface MemberView extends Member {
  isManageable: boolean;
}

/** raw-memberships: the members the caller may see, each with whether the caller may change it. */
export class MemberListing {
  constructor(
    private readonly store: MembershipStore,
    private readonly profiles: MemberProfiles,
  ) {}

  async visibleTo(organization: Organization, caller: Grant, ctx: RequestContext): Promise<MemberView[]> {
    let members = await this.store.memberships.members(organization.id);
    if (await this.profiles.refreshStale(members, ctx)) members = await this.store.memberships.members(organization.id);
    const self = members.find((member) => member.userId === caller.userId) ?? caller;
    return members.filter((member) => mayView(self, member)).map((member) => ({ ...member, isManageable: mayManage(self, member) }));
  }
}
