import { loadConfigOrExit } from "@docex/kit/config";
import { createLogger } from "@docex/kit/logger";
import { migrateAndExitIfRequested, runUntilSignalled } from "@docex/kit/runtime";
import { configSchema } from "./config.js";
import { startDocumentService } from "./service.js";
import { migrations } from "./store/migrations.js";

await migrateAndExitIfRequested("document", migrations);
const config = loadConfigOrExit(configSchema);
const logger = createLogger("document", config.LOG_LEVEL);
await runUntilSignalled(() => startDocumentService(config, { logger }), logger);
