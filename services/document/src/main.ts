import { createLogger, loadConfigOrExit, migrateAndExitIfRequested, runUntilSignalled } from "@docex/kit";
import { configSchema } from "./config.js";
import { startDocumentService } from "./service.js";
import { migrations } from "./store/migrations.js";

await migrateAndExitIfRequested("document", migrations);
const config = loadConfigOrExit(configSchema);
const logger = createLogger("document", config.LOG_LEVEL);
await runUntilSignalled(() => startDocumentService(config, { logger }), logger);
