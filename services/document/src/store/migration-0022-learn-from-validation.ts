import { sqlMigration } from "@docex/kit/db";

/** Issue 36, item 7: the queue option whether people's confirmations in validation feed the supplier memory (default on). */
export const learnFromValidationMigration = sqlMigration(
  "0022-learn-from-validation",
  `ALTER TABLE queues ADD COLUMN IF NOT EXISTS learn_from_validation boolean NOT NULL DEFAULT true`,
);
