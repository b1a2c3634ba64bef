import { milliseconds, serviceConfigSchema } from "@docex/kit/config";
import type { z } from "zod";

export const configSchema = serviceConfigSchema("automation").extend({
  /** Deadline of calls to the document service (ResolveEntity, GetQueue, GetDocument, ApplyDocumentChanges). */
  AUTOMATION_DOCUMENT_DEADLINE_MS: milliseconds(3_000),
  /** Deadline of CheckPermission / GetRoles. */
  AUTOMATION_MEMBERSHIP_DEADLINE_MS: milliseconds(1_000),
  /** Deadline of LookupItems (the `in_register` condition). */
  AUTOMATION_REGISTER_DEADLINE_MS: milliseconds(1_000),
  /** How long a permission answer is reused; membership.changed evicts it sooner. 0 asks every time. */
  AUTOMATION_PERMISSION_CACHE_MS: milliseconds(30_000),
});

export type AutomationConfig = z.infer<typeof configSchema>;
