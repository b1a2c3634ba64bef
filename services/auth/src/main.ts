import { loadConfigOrExit } from "@docex/kit/config";
import { createLogger } from "@docex/kit/logger";
import { migrateAndExitIfRequested, runUntilSignalled } from "@docex/kit/runtime";
import { configSchema, startAuthService } from "./service.js";
import { migrations } from "./store/migrations.js";

await migrateAndExitIfRequested("auth", migrations);
const config = loadConfigOrExit(configSchema);
const logger = createLogger("auth", config.LOG_LEVEL);
await runUntilSignalled(() => startAuthService(config, { logger }), logger);
