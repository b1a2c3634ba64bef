import { createLogger, loadConfigOrExit, runUntilSignalled } from "@docex/kit";
import { configSchema, startRegisterService } from "./service.js";

const config = loadConfigOrExit(configSchema);
const logger = createLogger("register", config.LOG_LEVEL);
await runUntilSignalled(() => startRegisterService(config, { logger }), logger);
