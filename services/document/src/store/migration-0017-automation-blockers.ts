import { sqlMigration } from "@docex/kit/db";

/**
 * Why extraction evaluation kept a document for manual validation (issue 36, item 6): `[{key, reason}]` as the
 * automation service's last run found it, shown on the Document as `automation_blockers`.
 */
export const automationBlockersMigration = sqlMigration(
  "0017-automation-blockers",
  `ALTER TABLE documents ADD COLUMN IF NOT EXISTS automation_blockers jsonb NOT NULL DEFAULT '[]'`,
);
