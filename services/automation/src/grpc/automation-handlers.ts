import { ValidationError } from "@docex/kit/errors";
import { isUuid } from "@docex/kit/ids";
import { parseInput } from "@docex/kit/validation";
import {
  type AutomationCallers,
  type AutomationHandlers,
  annotationSchemaJson,
  annotationsReaderJson,
  approvalRouteJson,
  evaluationFieldsJson,
  jsonText,
  toJsonText,
} from "@docex/protos";
import { z } from "zod";
import type { ApprovalRoutes } from "../domain/approval-routes.js";
import type { SettingsStore } from "../store/settings-store.js";

/**
 * The services that may call each method (the service names of their certificates); the gRPC server refuses
 * everyone else (PERMISSION_DENIED). Derived from the clients that call automation today: a new caller is added here.
 */
export const automationCallers: AutomationCallers = {
  // document: a queue's automation settings when it decides what happens to a new document.
  GetQueueAutomation: ["document"],
  // document: the route of a document a person moves to in_approval.
  PlanApprovalRoute: ["document"],
};

function uuidField(value: string, path: string): string {
  if (!isUuid(value)) throw new ValidationError(`${path} must be a UUID.`, [{ path, message: "must be a UUID" }]);
  return value.toLowerCase();
}

/** A `*_json` field of the request, read as its contract: text that is not of the shape is INVALID_ARGUMENT. */
function jsonArrayField<S extends z.ZodArray>(schema: S, text: string, path: string): z.output<S> {
  const field = jsonText(schema, [] as z.input<S>);
  return parseInput(z.object({ [path]: field }), { [path]: text }, "PlanApprovalRoute request")[path] as z.output<S>;
}

/**
 * docex.automation.v1.Automation: the automation part of a queue's DTO, for the document service. A queue
 * never configured answers the defaults (all disabled, document_confidence 0, no fields).
 */
export function automationHandlers(deps: { settings: SettingsStore; approvalRoutes: ApprovalRoutes }): AutomationHandlers {
  return {
    async GetQueueAutomation(request) {
      const found = await deps.settings.find(uuidField(request.queue_id, "queue_id"));
      return {
        accounting_automation: found.accountingAutomation,
        automation_rules: found.automationRules,
        extraction_evaluation_status: found.extractionEvaluation.status,
        document_confidence: found.extractionEvaluation.documentConfidence ?? 0,
        fields_json: toJsonText(evaluationFieldsJson, found.extractionEvaluation.fields),
      };
    },

    async PlanApprovalRoute(request, ctx) {
      const plan = await deps.approvalRoutes.plan(
        {
          organizationId: uuidField(request.organization_id, "organization_id"),
          queueId: uuidField(request.queue_id, "queue_id"),
          // The document service's own records, in the forms its GetDocument and GetQueue answer them.
          annotations: jsonArrayField(annotationsReaderJson, request.annotations_json, "annotations_json"),
          schema: jsonArrayField(annotationSchemaJson, request.annotation_schema_json, "annotation_schema_json"),
        },
        ctx,
      );
      return {
        approvers: plan.approvers,
        approval_route_json: plan.route ? toJsonText(approvalRouteJson, plan.route) : "",
        applied_rules: plan.appliedRules,
      };
    },
  };
}
