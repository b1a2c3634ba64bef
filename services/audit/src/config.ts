import { serviceConfigSchema } from "@docex/kit/config";
import { z } from "zod";

export const configSchema = serviceConfigSchema("audit").extend({
  /** How long audit entries are kept. */
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(365),
  /** How often entries past the retention are deleted. */
  AUDIT_PURGE_INTERVAL_MS: z.coerce.number().int().min(1_000).default(3_600_000),
});

export type AuditConfig = z.infer<typeof configSchema>;
