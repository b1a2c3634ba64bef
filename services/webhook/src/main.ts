import { createLogger, loadConfigOrExit, runUntilSignalled } from "@docex/kit";
import { configSchema, startWebhookService } from "./service.js";

const config = loadConfigOrExit(configSchema);
const logger = createLogger("webhook", config.LOG_LEVEL);
await runUntilSignalled(() => startWebhookService(config, { logger }), logger);
