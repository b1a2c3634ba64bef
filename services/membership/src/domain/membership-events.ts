import { createEvent, type DocexEvent } from "@docex/events";
import type { Grant, MembershipStatus, Role } from "./roles.js";

/** One membership before and after a change; `after` undefined when it was removed. */
export interface MembershipTransition {
  organizationId: string;
  userId: string;
  before: Pick<Grant, "role"> | undefined;
  after: Pick<Grant, "role" | "queueIds" | "status"> | undefined;
}

export function membershipChanged(transition: MembershipTransition, requestId: string | undefined): DocexEvent<"membership.changed"> {
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
    ...(requestId ? { request_id: requestId } : {}),
  });
}

export function statusChanged(
  change: { organizationId: string; userId: string; role: Role; queueIds: string[] | null; status: MembershipStatus },
  requestId: string | undefined,
): DocexEvent<"membership.changed"> {
  return membershipChanged(
    {
      organizationId: change.organizationId,
      userId: change.userId,
      before: { role: change.role },
      after: { role: change.role, queueIds: change.queueIds, status: change.status },
    },
    requestId,
  );
}

export function organizationCreated(
  organization: { id: string; humanizedId: string; name: string },
  ownerUserId: string,
  requestId: string | undefined,
): DocexEvent<"organization.created"> {
  return createEvent("organization.created", {
    organization_id: organization.id,
    data: { organization_id: organization.id, humanized_id: organization.humanizedId, name: organization.name, owner_user_id: ownerUserId },
    ...(requestId ? { request_id: requestId } : {}),
  });
}
