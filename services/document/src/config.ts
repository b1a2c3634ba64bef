import { serviceConfigSchema } from "@docex/kit";
import { z } from "zod";

const milliseconds = (fallback: number) => z.coerce.number().int().min(0).max(60_000).default(fallback);

export const configSchema = serviceConfigSchema("document").extend({
  /** Deadline of a CheckPermission / GetUserSchema / ListOrganizationsOfUser call. */
  DOCUMENT_MEMBERSHIP_DEADLINE_MS: milliseconds(1_000),
  /** How long a permission answer is reused; membership.changed evicts it sooner. 0 asks every time. */
  DOCUMENT_PERMISSION_CACHE_MS: milliseconds(30_000),
  /** How long a user's annotation schema (hidden / readonly fields) is reused. 0 asks every time. */
  DOCUMENT_USER_SCHEMA_CACHE_MS: milliseconds(2_000),
  /** Deadline of GetQueueAutomation: a queue read shows the defaults rather than wait longer. */
  DOCUMENT_AUTOMATION_DEADLINE_MS: milliseconds(250),
});

export type DocumentConfig = z.infer<typeof configSchema>;
