import { createLogger, loadConfigOrExit, runUntilSignalled } from "@docex/kit";
import { configSchema, startAutomationService } from "./service.js";

const config = loadConfigOrExit(configSchema);
const logger = createLogger("automation", config.LOG_LEVEL);
await runUntilSignalled(() => startAutomationService(config, { logger }), logger);
