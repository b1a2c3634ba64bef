import type { RulePage } from "../domain/automation-rules.js";
import type { QueueView } from "../domain/queue-automation.js";
import type { QueueSettings, Rule } from "../domain/records.js";

/** `extraction_evaluation` of QueueWithAnnotationSchemaDto, and the answer of PUT extraction-evaluation. */
export function extractionEvaluationDto(settings: QueueSettings) {
  return {
    status: settings.extractionEvaluation.status,
    document_confidence: settings.extractionEvaluation.documentConfidence,
    fields: settings.extractionEvaluation.fields,
  };
}

/** QueueWithAnnotationSchemaDto of API.md, the same shape (and key order) as the document service's. */
export function queueDto({ queue, settings }: QueueView) {
  return {
    id: queue.id,
    humanized_id: queue.humanizedId,
    name: queue.name,
    workspace_id: queue.workspaceId,
    organization_id: queue.organizationId,
    accounting_automation: settings.accountingAutomation,
    automation_rules: settings.automationRules,
    extraction_evaluation: extractionEvaluationDto(settings),
    annotation_schema: queue.annotationSchema,
    created_at: queue.createdAt,
  };
}

/** Rule of API.md "Automation". */
export function ruleDto(rule: Rule) {
  return {
    id: rule.id,
    queue_id: rule.queueId,
    kind: rule.kind,
    name: rule.name,
    action: rule.action,
    params: rule.params,
    conditions: rule.conditions,
    position: rule.position,
    created_at: new Date(rule.createdAt).toISOString(),
    updated_at: new Date(rule.updatedAt).toISOString(),
  };
}

export function paginationDto(page: RulePage) {
  return { page: page.page, page_size: page.pageSize, total: page.total, total_pages: Math.ceil(page.total / page.pageSize) };
}
