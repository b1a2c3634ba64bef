import { milliseconds, serviceConfigSchema } from "@docex/kit/config";
import type { z } from "zod";

export const configSchema = serviceConfigSchema("learning").extend({
  /** Deadline of a call to the document service (GetDocument, GetQueue, ResolveEntity, ApplyDocumentChanges). */
  LEARNING_DOCUMENT_DEADLINE_MS: milliseconds(2_000),
  /** Deadline of a CheckPermission call. */
  LEARNING_MEMBERSHIP_DEADLINE_MS: milliseconds(1_000),
  /** How long a permission answer is reused; membership.changed evicts it sooner. 0 asks every time. */
  LEARNING_PERMISSION_CACHE_MS: milliseconds(30_000),
});

export type LearningConfig = z.infer<typeof configSchema>;
