import { createLogger, loadConfigOrExit, migrateAndExitIfRequested, runUntilSignalled } from "@docex/kit";
import { configSchema } from "./config.js";
import { startIntakeService } from "./service.js";
import { migrations } from "./store/migrations.js";

await migrateAndExitIfRequested("intake", migrations);
const config = loadConfigOrExit(configSchema);
const logger = createLogger("intake", config.LOG_LEVEL);
await runUntilSignalled(() => startIntakeService(config, { logger }), logger);
