import { createLogger, loadConfigOrExit, runUntilSignalled } from "@docex/kit";
import { configSchema } from "./config.js";
import { startDocumentService } from "./service.js";

const config = loadConfigOrExit(configSchema);
const logger = createLogger("document", config.LOG_LEVEL);
await runUntilSignalled(() => startDocumentService(config, { logger }), logger);
