import { MembershipPermissions } from "@docex/access";
import { deleteRowsOfDocuments, deleteRowsOfQueue, removalSubscription } from "@docex/domain/removals";
import type { Logger } from "@docex/kit/logger";
import { connectInfrastructure, type RunningService } from "@docex/kit/runtime";
import { automationService } from "@docex/protos";
import { documentPort } from "./clients/document.js";
import { registerLookup } from "./clients/register.js";
import type { AutomationConfig } from "./config.js";
import { ApprovalRoutes } from "./domain/approval-routes.js";
import { AutomationRules } from "./domain/automation-rules.js";
import { DocumentAutomation } from "./domain/document-automation.js";
import { QueueAccess } from "./domain/queue-access.js";
import { QueueAutomation } from "./domain/queue-automation.js";
import { documentExtractedSubscription } from "./events/document-extracted.js";
import { registerUpdatedSubscription } from "./events/register-updated.js";
import { automationCallers, automationHandlers } from "./grpc/automation-handlers.js";
import { automationRoutes } from "./http/routes.js";
import { migrations } from "./store/migrations.js";
import { RegisterStore } from "./store/register-store.js";
import { RuleStore } from "./store/rule-store.js";
import { RunStore } from "./store/run-store.js";
import { SettingsStore } from "./store/settings-store.js";

export { type AutomationConfig, configSchema } from "./config.js";

export interface AutomationServiceOptions {
  logger?: Logger;
}

/** Builds the automation service from its configuration and starts it; the handle stops it gracefully. */
export async function startAutomationService(config: AutomationConfig, options: AutomationServiceOptions = {}): Promise<RunningService> {
  const infra = await connectInfrastructure("automation", config, { migrations, logger: options.logger });
  const { logger, metrics } = infra;
  const documents = documentPort(config.DOCUMENT_GRPC_ADDR, {
    identity: infra.grpcIdentity,
    deadlineMs: config.AUTOMATION_DOCUMENT_DEADLINE_MS,
    metrics,
    logger,
  });
  const membership = MembershipPermissions.connect(config.MEMBERSHIP_GRPC_ADDR, {
    identity: infra.grpcIdentity,
    deadlineMs: config.AUTOMATION_MEMBERSHIP_DEADLINE_MS,
    cacheMs: config.AUTOMATION_PERMISSION_CACHE_MS,
    bus: infra.bus,
    logger,
    metrics,
  });
  const registers = registerLookup(config.REGISTER_GRPC_ADDR, {
    identity: infra.grpcIdentity,
    deadlineMs: config.AUTOMATION_REGISTER_DEADLINE_MS,
    metrics,
    logger,
  });
  const closeClients = async () => {
    documents.close();
    registers.close();
    await membership.close();
  };
  return infra.startOrClose(closeClients, async () => {
    const sql = infra.sql;
    const settings = new SettingsStore(sql);
    const ruleStore = new RuleStore(sql);
    const registerStore = new RegisterStore(sql);
    const events = infra.events;
    const access = new QueueAccess(documents, membership);
    const queues = new QueueAutomation({ sql, access, settings, events });
    const rules = new AutomationRules({
      sql,
      rules: ruleStore,
      settings,
      registers: registerStore,
      registerLookup: registers,
      access,
      membership,
      events,
    });
    const automation = new DocumentAutomation({
      sql,
      settings,
      rules: ruleStore,
      runs: new RunStore(sql),
      events,
      documents,
      registerLookup: registers,
      logger,
    });

    const http = automationRoutes({ queues, rules }, infra.verifier);
    const app = infra.httpApp(http);
    const grpc = infra.grpcServer();
    grpc.addService(
      automationService.definition,
      automationService.serviceName,
      automationHandlers({ settings, approvalRoutes: new ApprovalRoutes({ settings, rules: ruleStore, registerLookup: registers }) }),
      automationCallers,
    );

    return infra.serve({
      app,
      grpc,
      subscriptions: [
        documentExtractedSubscription(automation, logger),
        registerUpdatedSubscription(registerStore),
        removalSubscription(
          "automation__queue_deleted",
          "queue.deleted",
          deleteRowsOfQueue(infra.sql, ["document_runs", "queue_registers", "rules", "queue_settings"]),
        ),
        removalSubscription("automation__documents_purged", "documents.purged", deleteRowsOfDocuments(infra.sql, ["document_runs"])),
      ],
      onStop: closeClients,
    });
  });
}
