import { loadConfigOrExit } from "@docex/kit/config";
import { connectDatabase, openDatabase } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import { migrateServiceDatabase } from "@docex/kit/runtime";
import { z } from "zod";
import { configSchema } from "./config.js";
import { importMembershipAudit } from "./store/membership-import.js";
import { migrations } from "./store/migrations.js";

/**
 * One-shot: `MEMBERSHIP_AUDIT_DATABASE_URL=postgres://.../docex_membership node services/audit/dist/import-membership-audit.js`
 * copies the audit log membership recorded into this service's database (DATABASE_URL, DATABASE_NAME as the service
 * reads them), migrating it first. Safe to run again, and while the service runs: it adds only what is missing.
 */
const config = loadConfigOrExit(
  configSchema.extend({
    /** Membership's database, the database name as the URL's path. */
    MEMBERSHIP_AUDIT_DATABASE_URL: z.url(),
  }),
);
const logger = createLogger("audit-import", config.LOG_LEVEL);
await migrateServiceDatabase(config, { migrations, logger });
const source = await openDatabase(config.MEMBERSHIP_AUDIT_DATABASE_URL, { poolMax: 1, logger });
const target = await connectDatabase({ serverUrl: config.DATABASE_URL, database: config.DATABASE_NAME, poolMax: 2, logger });
try {
  const result = await importMembershipAudit(source, target);
  logger.info({ ...result, database: config.DATABASE_NAME }, "membership's audit entries imported");
} catch (error) {
  logger.fatal({ err: error }, "import of membership's audit entries failed; running it again resumes it");
  process.exitCode = 1;
} finally {
  await source.close();
  await target.close();
}
