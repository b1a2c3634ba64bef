import { createLogger, loadConfigOrExit, runUntilSignalled } from "@docex/kit";
import { configSchema } from "./config.js";
import { startAutomationService } from "./service.js";

const config = loadConfigOrExit(configSchema);
const logger = createLogger("automation", config.LOG_LEVEL);
await runUntilSignalled(() => startAutomationService(config, { logger }), logger);
