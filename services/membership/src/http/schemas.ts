import { humanizedIdInput } from "@docex/domain/humanized-id";
import { ROLES } from "@docex/events";
import { z } from "zod";
import type { RoleOperation } from "../domain/role-plan.js";

const uuid = z.guid({ message: "Must be a UUID." });
const role = z.enum(ROLES);
const queueIds = z
  .array(uuid)
  .max(1_000)
  .nullable()
  .transform((ids) => (ids === null ? null : [...new Set(ids.map((id) => id.toLowerCase()))]));

export const MAX_ROLE_OPERATIONS = 100;

export const createOrganizationBody = z.object({
  name: z.string().trim().min(1).max(200),
  humanized_id: humanizedIdInput.nullish().describe("Lowercase slug, unique among organizations; made from the name when left out"),
});

export const renameOrganizationBody = z.strictObject({ name: z.string().trim().min(1).max(200) });

const roleOperationEntry = z
  .object({
    operation: z.enum(["invite", "set_role", "remove"]),
    user_id: uuid.nullish(),
    email: z.email({ message: "Must be an email address." }).max(320).nullish(),
    role: role.nullish(),
    queue_ids: queueIds.optional(),
  })
  .superRefine((entry, ctx) => {
    const need = (field: "user_id" | "email" | "role", why: string) => {
      if (entry[field] == null) ctx.addIssue({ code: "custom", path: [field], message: `Required for ${entry.operation}${why}.` });
    };
    const refuse = (field: "user_id" | "email" | "role" | "queue_ids", instead: string) => {
      if (entry[field] != null) ctx.addIssue({ code: "custom", path: [field], message: `Not used by ${entry.operation}; ${instead}.` });
    };
    switch (entry.operation) {
      case "invite":
        need("email", "");
        need("role", "");
        refuse("user_id", "an invitation names the person by email");
        break;
      case "set_role":
        need("user_id", "");
        need("role", "");
        refuse("email", "name the member by user_id");
        break;
      case "remove":
        need("user_id", "");
        refuse("email", "name the member by user_id");
        refuse("role", "leave it out");
        refuse("queue_ids", "leave it out");
        break;
    }
  })
  .describe(
    "UserRoleManageDataDto. invite: email and role (queue_ids optional); set_role: user_id and role (queue_ids optional, " +
      "left out keeps them); remove: user_id only. queue_ids apply to admin, editor, approver and viewer; null means every queue.",
  );

/** UserRoleManageDataDto[]: checked entry by entry, so each problem names its index (`2.role`). */
export const assignRolesBody = z
  .array(roleOperationEntry)
  .min(1, "At least one operation.")
  .max(MAX_ROLE_OPERATIONS, `At most ${MAX_ROLE_OPERATIONS} operations at once.`)
  .transform((entries): RoleOperation[] => entries.map(roleOperationOf));

/** The entry as the domain takes it; the refinement above made the fields each operation needs present. */
function roleOperationOf(entry: z.output<typeof roleOperationEntry>): RoleOperation {
  if (entry.operation === "invite") {
    return { operation: "invite", email: entry.email!.toLowerCase(), role: entry.role!, queueIds: entry.queue_ids ?? null };
  }
  if (entry.operation === "set_role") {
    return {
      operation: "set_role",
      userId: entry.user_id!.toLowerCase(),
      role: entry.role!,
      ...(entry.queue_ids === undefined ? {} : { queueIds: entry.queue_ids }),
    };
  }
  return { operation: "remove", userId: entry.user_id!.toLowerCase() };
}

export const manageUserSchemaBody = z.object({
  user_id: uuid.transform((id) => id.toLowerCase()),
  queue_id: uuid
    .transform((id) => id.toLowerCase())
    .nullish()
    .transform((id) => id ?? null),
  fields: z
    .array(
      z.object({
        key: z.string().trim().min(1).max(100),
        hidden: z.boolean().default(false),
        readonly: z.boolean().default(false),
      }),
    )
    .max(500)
    .superRefine((fields, ctx) => {
      const seen = new Set<string>();
      fields.forEach((field, index) => {
        if (seen.has(field.key)) ctx.addIssue({ code: "custom", path: [index, "key"], message: `The key ${field.key} appears twice.` });
        seen.add(field.key);
      });
    }),
});
