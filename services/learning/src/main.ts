import { createLogger, loadConfigOrExit, runUntilSignalled } from "@docex/kit";
import { configSchema } from "./config.js";
import { startLearningService } from "./service.js";

const config = loadConfigOrExit(configSchema);
const logger = createLogger("learning", config.LOG_LEVEL);
await runUntilSignalled(() => startLearningService(config, { logger }), logger);
