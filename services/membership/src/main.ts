import { createLogger, loadConfigOrExit, runUntilSignalled } from "@docex/kit";
import { configSchema, startMembershipService } from "./service.js";

const config = loadConfigOrExit(configSchema);
const logger = createLogger("membership", config.LOG_LEVEL);
await runUntilSignalled(() => startMembershipService(config, { logger }), logger);
