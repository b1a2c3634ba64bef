import { loadConfigOrExit } from "@docex/kit/config";
import { createLogger } from "@docex/kit/logger";
import { migrateAndExitIfRequested, runUntilSignalled } from "@docex/kit/runtime";
import { configSchema } from "./config.js";
import { startAutomationService } from "./service.js";
import { migrations } from "./store/migrations.js";

await migrateAndExitIfRequested("automation", migrations);
const config = loadConfigOrExit(configSchema);
const logger = createLogger("automation", config.LOG_LEVEL);
await runUntilSignalled(() => startAutomationService(config, { logger }), logger);
