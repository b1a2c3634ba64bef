import { loadConfigOrExit } from "@docex/kit/config";
import { createLogger } from "@docex/kit/logger";
import { migrateAndExitIfRequested, runUntilSignalled } from "@docex/kit/runtime";
import { configSchema } from "./config.js";
import { startIntakeService } from "./service.js";
import { migrations } from "./store/migrations.js";

await migrateAndExitIfRequested("intake", migrations);
const config = loadConfigOrExit(configSchema);
const logger = createLogger("intake", config.LOG_LEVEL);
await runUntilSignalled(() => startIntakeService(config, { logger }), logger);
