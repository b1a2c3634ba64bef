import { loadConfigOrExit } from "@docex/kit/config";
import { createLogger } from "@docex/kit/logger";
import { migrateAndExitIfRequested, runUntilSignalled } from "@docex/kit/runtime";
import { configSchema } from "./config.js";
import { startLearningService } from "./service.js";
import { migrations } from "./store/migrations.js";

await migrateAndExitIfRequested("learning", migrations);
const config = loadConfigOrExit(configSchema);
const logger = createLogger("learning", config.LOG_LEVEL);
await runUntilSignalled(() => startLearningService(config, { logger }), logger);
