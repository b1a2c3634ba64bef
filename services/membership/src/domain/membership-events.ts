import { createEvent, type DocexEvent } from "@docex/events";
import type { RequestContext } from "./organizations.js";
import type { Grant, MembershipStatus, Role } from "./roles.js";

/** The envelope fields that say where an event came from: the request and, when a user acted, who. */
function origin(ctx: RequestContext) {
  return {
    ...(ctx.requestId ? { request_id: ctx.requestId } : {}),
    ...(ctx.actorUserId === undefined ? {} : { actor_user_id: ctx.actorUserId }),
  };
}

/** One membership before and after a change; `after` undefined when it was removed. */
export interface MembershipTransition {
  organizationId: string;
  userId: string;
  before: Pick<Grant, "role"> | undefined;
  after: Pick<Grant, "role" | "queueIds" | "status"> | undefined;
}

export function membershipChanged(transition: MembershipTransition, ctx: RequestContext): DocexEvent<"membership.changed"> {
  const { organizationId, userId, before, after } = transition;
  return createEvent("membership.changed", {
    organization_id: organizationId,
    data: {
      organization_id: organizationId,
      user_id: userId,
      role: after?.role ?? null,
      previous_role: before?.role ?? null,
      queue_ids: after?.queueIds ?? null,
      status: after?.status ?? "removed",
    },
    ...origin(ctx),
  });
}

export function statusChanged(
  change: { organizationId: string; userId: string; role: Role; queueIds: string[] | null; status: MembershipStatus },
  ctx: RequestContext,
): DocexEvent<"membership.changed"> {
  return membershipChanged(
    {
      organizationId: change.organizationId,
      userId: change.userId,
      before: { role: change.role },
      after: { role: change.role, queueIds: change.queueIds, status: change.status },
    },
    ctx,
  );
}

export function organizationCreated(
  organization: { id: string; humanizedId: string; name: string },
  ownerUserId: string,
  ctx: RequestContext,
): DocexEvent<"organization.created"> {
  return createEvent("organization.created", {
    organization_id: organization.id,
    data: { organization_id: organization.id, humanized_id: organization.humanizedId, name: organization.name, owner_user_id: ownerUserId },
    ...origin(ctx),
  });
}

/** A member's user schema (organization-wide, or of one queue) replaced. */
export function userSchemaChanged(
  change: { organizationId: string; userId: string; queueId: string | null; previous: unknown[]; current: unknown[] },
  ctx: RequestContext,
): DocexEvent<"configuration.changed"> {
  return createEvent("configuration.changed", {
    organization_id: change.organizationId,
    data: {
      resource: "user_schema",
      resource_id: change.userId,
      queue_id: change.queueId,
      change: "updated",
      previous: { user_id: change.userId, fields: change.previous },
      current: { user_id: change.userId, fields: change.current },
    },
    ...origin(ctx),
  });
}

/** An organization renamed (its humanized id stays). */
export function organizationRenamed(
  organization: { id: string },
  names: { previous: string; current: string },
  ctx: RequestContext,
): DocexEvent<"configuration.changed"> {
  return createEvent("configuration.changed", {
    organization_id: organization.id,
    data: {
      resource: "organization",
      resource_id: organization.id,
      queue_id: null,
      change: "updated",
      previous: { name: names.previous },
      current: { name: names.current },
    },
    ...origin(ctx),
  });
}
