import { isUuid, ValidationError } from "@docex/kit";
import type { AutomationCallers, AutomationHandlers } from "@docex/protos";
import type { SettingsStore } from "../store/settings-store.js";

/**
 * The services that may call each method (the service names of their certificates); the gRPC server refuses
 * everyone else (PERMISSION_DENIED). Derived from the clients that call automation today: a new caller is added here.
 */
export const automationCallers: AutomationCallers = {
  // document: a queue's automation settings when it decides what happens to a new document.
  GetQueueAutomation: ["document"],
};

/**
 * docex.automation.v1.Automation: the automation part of a queue's DTO, for the document service. A queue
 * never configured answers the defaults (all disabled, document_confidence 0, no fields).
 */
export function automationHandlers(settings: SettingsStore): AutomationHandlers {
  return {
    async GetQueueAutomation(request) {
      if (!isUuid(request.queue_id))
        throw new ValidationError("queue_id must be a UUID.", [{ path: "queue_id", message: "must be a UUID" }]);
      const found = await settings.find(request.queue_id.toLowerCase());
      return {
        accounting_automation: found.accountingAutomation,
        automation_rules: found.automationRules,
        extraction_evaluation_status: found.extractionEvaluation.status,
        document_confidence: found.extractionEvaluation.documentConfidence ?? 0,
        fields_json: JSON.stringify(found.extractionEvaluation.fields),
      };
    },
  };
}
