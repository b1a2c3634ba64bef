import type { MemberView } from "../domain/member-listing.js";
import type { UserSchemaChange } from "../domain/user-schemas.js";
import type { Organization } from "../store/membership-store.js";

export function organizationResponse(organization: Organization) {
  return {
    id: organization.id,
    humanized_id: organization.humanizedId,
    name: organization.name,
    created_at: organization.createdAt.toISOString(),
  };
}

/** MembershipResponseDto's entry; email and name are null while auth has not told them. */
export function memberResponse(member: MemberView) {
  return {
    user_id: member.userId,
    email: member.email || null,
    name: member.name || null,
    role: member.role,
    queue_ids: member.queueIds,
    status: member.status,
    is_manageable: member.isManageable,
  };
}

export function userSchemaResponse(schema: UserSchemaChange) {
  return { user_id: schema.userId, queue_id: schema.queueId, fields: schema.fields };
}
