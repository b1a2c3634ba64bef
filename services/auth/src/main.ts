import { createLogger, loadConfigOrExit, runUntilSignalled } from "@docex/kit";
import { configSchema, startAuthService } from "./service.js";

const config = loadConfigOrExit(configSchema);
const logger = createLogger("auth", config.LOG_LEVEL);
await runUntilSignalled(() => startAuthService(config, { logger }), logger);
