import { humanizedIdProblem } from "@docex/domain/humanized-id";
import { type FieldError, ValidationError } from "@docex/kit/errors";
import { isUuid } from "@docex/kit/ids";
import type { MembershipCallers, MembershipHandlers, Organization as OrganizationMessage } from "@docex/protos";
import type { InvitationAcceptance } from "../domain/invitation-acceptance.js";
import { organizationNotFound } from "../domain/membership-errors.js";
import type { Organizations } from "../domain/organizations.js";
import { decidePermission, isEffective, isPermission, PERMISSIONS } from "../domain/roles.js";
import type { UserSchemas } from "../domain/user-schemas.js";
import type { MembershipStore, Organization } from "../store/membership-store.js";

function organizationMessage(organization: Organization): OrganizationMessage {
  return {
    id: organization.id,
    humanized_id: organization.humanizedId,
    name: organization.name,
    created_at: organization.createdAt.toISOString(),
  };
}

/** INVALID_ARGUMENT naming every field that is not a UUID. */
function requireUuids(fields: Record<string, string | undefined>): void {
  const errors: FieldError[] = Object.entries(fields)
    .filter(([, value]) => value !== undefined && !isUuid(value))
    .map(([path]) => ({ path, message: "Must be a UUID." }));
  if (errors.length) throw new ValidationError(`Invalid ${errors.map((error) => error.path).join(", ")}: must be a UUID.`, errors);
}

/**
 * The services that may call each method (the service names of their certificates); the gRPC server refuses
 * everyone else (PERMISSION_DENIED). Derived from the clients that call membership today: a new caller is added here.
 */
export const membershipCallers: MembershipCallers = {
  GetRoles: ["automation", "document"],
  CheckPermission: ["audit", "automation", "document", "extraction", "learning", "register", "webhook"],
  // auth: the organization of a user who signs up.
  CreateOrganization: ["auth"],
  GetUserSchema: ["document"],
  // audit: the organizations whose logs get a member's login attempts.
  ListOrganizationsOfUser: ["document", "audit"],
  GetOrganization: ["audit", "document"],
  // auth: a user accepting an invitation.
  AcceptInvitation: ["auth"],
};

/** docex.membership.v1.Membership: the one place other services learn roles and permissions from. */
export function membershipHandlers(deps: {
  store: MembershipStore;
  organizations: Organizations;
  userSchemas: UserSchemas;
  invitations: InvitationAcceptance;
}): MembershipHandlers {
  const { store, organizations, userSchemas, invitations } = deps;
  return {
    async GetRoles(request) {
      requireUuids({ user_id: request.user_id, organization_id: request.organization_id });
      const grant = await store.memberships.findGrant(request.organization_id, request.user_id);
      // A pending invitation is no membership until its user accepts.
      if (!grant || grant.status === "invited") return { role: "", queue_ids: [], all_queues: false, status: "" };
      return { role: grant.role, queue_ids: grant.queueIds ?? [], all_queues: grant.queueIds === null, status: grant.status };
    },

    async CheckPermission(request) {
      requireUuids({ user_id: request.user_id, organization_id: request.organization_id, queue_id: request.queue_id });
      if (!isPermission(request.permission)) {
        throw new ValidationError(`Unknown permission ${JSON.stringify(request.permission)}; one of ${PERMISSIONS.join(", ")}.`, [
          { path: "permission", message: "Unknown permission." },
        ]);
      }
      const grant = await store.memberships.findGrant(request.organization_id, request.user_id);
      if (!grant || !isEffective(grant)) return { allowed: false, is_member: false, role: "" };
      return { allowed: decidePermission(grant, request.permission, request.queue_id), is_member: true, role: grant.role };
    },

    async CreateOrganization(request, ctx) {
      const errors: FieldError[] = [];
      const name = request.name.trim();
      if (!name || name.length > 200) errors.push({ path: "name", message: "Between 1 and 200 characters." });
      if (!request.idempotency_key) errors.push({ path: "idempotency_key", message: "Required." });
      if (!isUuid(request.owner_user_id)) errors.push({ path: "owner_user_id", message: "Must be a UUID." });
      const humanizedIssue = request.humanized_id === undefined ? undefined : humanizedIdProblem(request.humanized_id);
      if (humanizedIssue) errors.push({ path: "humanized_id", message: humanizedIssue });
      if (errors.length) throw new ValidationError("The CreateOrganization request is invalid.", errors);
      const { organization, created } = await organizations.create(
        {
          name,
          ownerUserId: request.owner_user_id,
          idempotencyKey: request.idempotency_key,
          ...(request.humanized_id === undefined ? {} : { humanizedId: request.humanized_id }),
        },
        { requestId: ctx.requestId, actorUserId: request.owner_user_id },
      );
      return { organization: organizationMessage(organization), created };
    },

    async GetUserSchema(request) {
      const queueId = request.queue_id || null;
      requireUuids({ user_id: request.user_id, organization_id: request.organization_id, queue_id: queueId ?? undefined });
      return { fields: await userSchemas.effective(request.organization_id, request.user_id, queueId) };
    },

    async ListOrganizationsOfUser(request) {
      requireUuids({ user_id: request.user_id });
      const { organizations: found } = await store.organizations.organizationsOfUser(
        request.user_id,
        undefined,
        request.include_deactivated === true,
      );
      return { organizations: found.map(organizationMessage) };
    },

    async AcceptInvitation(request, ctx) {
      requireUuids({ user_id: request.user_id, organization_id: request.organization_id });
      const { organization, accepted } = await invitations.accept(
        { organizationId: request.organization_id, userId: request.user_id, email: request.email, name: request.name || null },
        { requestId: ctx.requestId },
      );
      return { organization: organizationMessage(organization), accepted };
    },

    async GetOrganization(request) {
      const organization = request.id_or_humanized
        ? await store.organizations.findOrganization(request.id_or_humanized.toLowerCase())
        : undefined;
      if (!organization) throw organizationNotFound();
      return { organization: organizationMessage(organization) };
    },
  };
}
