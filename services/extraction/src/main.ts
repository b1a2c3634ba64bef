import { loadConfigOrExit } from "@docex/kit/config";
import { createLogger } from "@docex/kit/logger";
import { migrateAndExitIfRequested, runUntilSignalled } from "@docex/kit/runtime";
import { configSchema } from "./config.js";
import { startExtractionService } from "./service.js";
import { migrations } from "./store/migrations.js";

await migrateAndExitIfRequested("extraction", migrations);
const config = loadConfigOrExit(configSchema);
const logger = createLogger("extraction", config.LOG_LEVEL);
await runUntilSignalled(() => startExtractionService(config, { logger }), logger);
