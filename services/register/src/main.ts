import { loadConfigOrExit } from "@docex/kit/config";
import { createLogger } from "@docex/kit/logger";
import { migrateAndExitIfRequested, runUntilSignalled } from "@docex/kit/runtime";
import { configSchema, startRegisterService } from "./service.js";
import { migrations } from "./store/migrations.js";

await migrateAndExitIfRequested("register", migrations);
const config = loadConfigOrExit(configSchema);
const logger = createLogger("register", config.LOG_LEVEL);
await runUntilSignalled(() => startRegisterService(config, { logger }), logger);
