import { pageQuery } from "@docex/kit/http";
import { z } from "zod";
import { AUDIT_TYPE_FAMILIES, AUDITED_TYPES, type AuditedType } from "../domain/audit-entries.js";

const uuid = z.guid({ message: "Must be a UUID." });

/** `type=`: comma-separated audited event types or families (`document` is every `document.*`). */
const auditTypes = z
  .string()
  .max(1_000)
  .transform((value, ctx) => {
    const types = new Set<AuditedType>();
    for (const name of value.split(",").map((part) => part.trim())) {
      const matching = AUDITED_TYPES.filter((type) => type === name || type.startsWith(`${name}.`));
      if (matching.length === 0) {
        ctx.addIssue({
          code: "custom",
          message: `Unknown type ${JSON.stringify(name)}: one of ${[...AUDIT_TYPE_FAMILIES, ...AUDITED_TYPES].join(", ")}.`,
        });
        return z.NEVER;
      }
      for (const type of matching) types.add(type);
    }
    return [...types];
  })
  .describe(`Comma-separated event types or families: ${[...AUDIT_TYPE_FAMILIES, ...AUDITED_TYPES].join(", ")}`);

const instant = z.iso.datetime({ offset: true, message: "Must be an ISO 8601 date-time with a time zone." });

export const auditLogQuery = pageQuery
  .extend({
    type: auditTypes.optional(),
    user_id: uuid.optional().describe("Only what this user did"),
    from: instant.optional().describe("Entries at or after this instant"),
    to: instant.optional().describe("Entries before this instant"),
    order: z.enum(["desc", "asc"]).default("desc").describe("By time: newest first (default) or oldest first"),
  })
  .refine((query) => query.from === undefined || query.to === undefined || Date.parse(query.from) < Date.parse(query.to), {
    path: ["to"],
    message: "Must be later than from.",
  });
