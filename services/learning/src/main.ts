import { createLogger, loadConfigOrExit, migrateAndExitIfRequested, runUntilSignalled } from "@docex/kit";
import { configSchema } from "./config.js";
import { startLearningService } from "./service.js";
import { migrations } from "./store/migrations.js";

await migrateAndExitIfRequested("learning", migrations);
const config = loadConfigOrExit(configSchema);
const logger = createLogger("learning", config.LOG_LEVEL);
await runUntilSignalled(() => startLearningService(config, { logger }), logger);
