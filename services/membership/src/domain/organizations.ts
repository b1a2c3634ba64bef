import { randomUUID } from "node:crypto";
import { insertWithFreeHumanizedId, slugFromName } from "@docex/domain/humanized-id";
import { ForbiddenError } from "@docex/kit/errors";
import type { MembershipStore, Organization, Tx } from "../store/membership-store.js";
import { humanizedIdTaken, organizationNotFound } from "./membership-errors.js";
import { membershipChanged, organizationCreated, organizationRenamed } from "./membership-events.js";
import { type Grant, isEffective } from "./roles.js";

export interface NewOrganization {
  name: string;
  /** Already checked by the edge; absent derives one from the name. */
  humanizedId?: string;
  ownerUserId: string;
  /** What the caller knows of the owner's email (token, event), kept as the member's profile. */
  ownerEmail?: string;
  /** A repeated key answers the organization created the first time. */
  idempotencyKey?: string;
}

export interface RequestContext {
  requestId?: string;
  /** The user whose request this is; null when the service acts on its own (e.g. a consumer). */
  actorUserId?: string | null;
}

/** Organizations and who may see them: a member whose membership is not deactivated. */
export class Organizations {
  constructor(private readonly store: MembershipStore) {}

  create(input: NewOrganization, ctx: RequestContext): Promise<{ organization: Organization; created: boolean }> {
    return this.store.transaction((tx) => this.createIn(tx, input, ctx));
  }

  /** Creates the organization with its owner in `tx`, publishing `organization.created` and `membership.changed`. */
  async createIn(tx: Tx, input: NewOrganization, ctx: RequestContext): Promise<{ organization: Organization; created: boolean }> {
    if (input.idempotencyKey) {
      await this.store.lockKey(tx, `create-organization:${input.idempotencyKey}`);
      const existing = await this.store.organizations.findOrganizationByIdempotencyKey(input.idempotencyKey, tx);
      if (existing) return { organization: existing, created: false };
    }
    const organization = await this.insert(tx, input);
    const owner: Grant = { userId: input.ownerUserId, role: "owner", queueIds: null, status: "active" };
    await this.store.memberships.insertMembership(tx, organization.id, owner);
    if (input.ownerEmail) await this.store.profiles.saveProfile(tx, { userId: owner.userId, email: input.ownerEmail, refreshed: false });
    await this.store.events.add(
      tx,
      organizationCreated(organization, owner.userId, ctx),
      membershipChanged({ organizationId: organization.id, userId: owner.userId, before: undefined, after: owner }, ctx),
    );
    return { organization, created: true };
  }

  private async insert(tx: Tx, input: NewOrganization): Promise<Organization> {
    const row = { id: randomUUID(), name: input.name, idempotencyKey: input.idempotencyKey ?? null };
    if (input.humanizedId) {
      const inserted = await this.store.organizations.insertOrganization(tx, { ...row, humanizedId: input.humanizedId });
      if (!inserted) throw humanizedIdTaken(input.humanizedId);
      return inserted;
    }
    const base = slugFromName(input.name, "organization");
    const inserted = await insertWithFreeHumanizedId(base, {
      taken: (slug) => this.store.organizations.humanizedIdsLike(slug, tx),
      insert: (humanizedId) => this.store.organizations.insertOrganization(tx, { ...row, humanizedId }),
    });
    if (!inserted) throw new Error(`could not find a free humanized id for ${base}`);
    return inserted;
  }

  /** The organization named by `ref` (UUID or humanized id) with the caller's membership; 404 for a non-member. */
  async visibleTo(ref: string, userId: string): Promise<{ organization: Organization; caller: Grant }> {
    const organization = await this.store.organizations.findOrganization(ref);
    const caller = organization && (await this.store.memberships.findGrant(organization.id, userId));
    if (!organization || !caller || !isEffective(caller)) throw organizationNotFound();
    return { organization, caller };
  }

  /**
   * Renames the organization: owners and supervisors (who manage its workspaces). Its humanized id stays.
   * Publishes `configuration.changed` (resource `organization`) when the name changes.
   */
  async rename(visible: { organization: Organization; caller: Grant }, name: string, ctx: RequestContext): Promise<Organization> {
    const { organization, caller } = visible;
    if (caller.role !== "owner" && caller.role !== "supervisor") {
      throw new ForbiddenError(`Your role (${caller.role}) does not allow renaming the organization.`);
    }
    if (organization.name === name) return organization;
    return this.store.transaction(async (tx) => {
      const renamed = await this.store.organizations.renameOrganization(tx, organization.id, name);
      if (!renamed) throw organizationNotFound();
      await this.store.events.add(tx, organizationRenamed(organization, { previous: organization.name, current: name }, ctx));
      return renamed;
    });
  }

  ofUser(userId: string, page?: { offset: number; limit: number }): Promise<{ organizations: Organization[]; total: number }> {
    return this.store.organizations.organizationsOfUser(userId, page);
  }
}
