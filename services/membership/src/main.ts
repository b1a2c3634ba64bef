import { loadConfigOrExit } from "@docex/kit/config";
import { createLogger } from "@docex/kit/logger";
import { migrateAndExitIfRequested, runUntilSignalled } from "@docex/kit/runtime";
import { configSchema, startMembershipService } from "./service.js";
import { migrations } from "./store/migrations.js";

await migrateAndExitIfRequested("membership", migrations);
const config = loadConfigOrExit(configSchema);
const logger = createLogger("membership", config.LOG_LEVEL);
await runUntilSignalled(() => startMembershipService(config, { logger }), logger);
