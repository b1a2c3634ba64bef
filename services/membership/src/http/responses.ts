import { ROLES } from "@docex/events";
import { z } from "zod";
import type { MemberView } from "../domain/member-listing.js";
import type { MembershipStatus } from "../domain/roles.js";
import type { UserSchemaChange } from "../domain/user-schemas.js";
import type { Organization } from "../store/membership-store.js";

const MEMBERSHIP_STATUSES = ["active", "invited", "deactivated"] as const satisfies readonly MembershipStatus[];

export const organizationSchema = z.strictObject({
  id: z.guid(),
  humanized_id: z.string().describe("Lowercase slug, unique among organizations; accepted wherever organization_id is"),
  name: z.string(),
  created_at: z.iso.datetime(),
});

export function organizationResponse(organization: Organization): z.infer<typeof organizationSchema> {
  return {
    id: organization.id,
    humanized_id: organization.humanizedId,
    name: organization.name,
    created_at: organization.createdAt.toISOString(),
  };
}

/** MembershipResponseDto's entry. */
export const membershipSchema = z.strictObject({
  user_id: z.guid(),
  email: z.string().nullable().describe("Null while auth has not told it"),
  name: z.string().nullable().describe("Null while auth has not told it, or the user gave none"),
  role: z.enum(ROLES),
  queue_ids: z.array(z.guid()).nullable().describe("The queues an admin, editor, approver or viewer is limited to; null: every queue"),
  status: z.enum(MEMBERSHIP_STATUSES),
  is_manageable: z.boolean().describe("Whether the caller may change this member"),
});

/** MembershipResponseDto's entry; email and name are null while auth has not told them. */
export function memberResponse(member: MemberView): z.infer<typeof membershipSchema> {
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

export const userSchemaSchema = z.strictObject({
  user_id: z.guid(),
  queue_id: z.guid().nullable().describe("Null: the member's organization-wide schema"),
  fields: z.array(z.strictObject({ key: z.string(), hidden: z.boolean(), readonly: z.boolean() })),
});

export function userSchemaResponse(schema: UserSchemaChange): z.infer<typeof userSchemaSchema> {
  return { user_id: schema.userId, queue_id: schema.queueId, fields: schema.fields };
}
