import { loadConfigOrExit } from "@docex/kit/config";
import { createLogger } from "@docex/kit/logger";
import { migrateAndExitIfRequested, runUntilSignalled } from "@docex/kit/runtime";
import { configSchema } from "./config.js";
import { startAuditService } from "./service.js";
import { migrations } from "./store/migrations.js";

await migrateAndExitIfRequested("audit", migrations);
const config = loadConfigOrExit(configSchema);
const logger = createLogger("audit", config.LOG_LEVEL);
await runUntilSignalled(() => startAuditService(config, { logger }), logger);
