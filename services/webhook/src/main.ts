import { loadConfigOrExit } from "@docex/kit/config";
import { createLogger } from "@docex/kit/logger";
import { migrateAndExitIfRequested, runUntilSignalled } from "@docex/kit/runtime";
import { configSchema, startWebhookService } from "./service.js";
import { migrations } from "./store/migrations.js";

await migrateAndExitIfRequested("webhook", migrations);
const config = loadConfigOrExit(configSchema);
const logger = createLogger("webhook", config.LOG_LEVEL);
await runUntilSignalled(() => startWebhookService(config, { logger }), logger);
