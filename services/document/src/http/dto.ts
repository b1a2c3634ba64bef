import type { QueueAutomation } from "../clients/automation.js";
import type { QueueView } from "../domain/hierarchy.js";
import type { Page, StoredDocument, Workspace } from "../domain/records.js";

/** API.md: `{id, humanized_id, name, organization_id, created_at}`. */
export function workspaceDto(workspace: Workspace) {
  return {
    id: workspace.id,
    humanized_id: workspace.humanizedId,
    name: workspace.name,
    organization_id: workspace.organizationId,
    created_at: workspace.createdAt.toISOString(),
  };
}

function automationDto(automation: QueueAutomation) {
  return {
    accounting_automation: automation.accountingAutomation,
    automation_rules: automation.automationRules,
    extraction_evaluation: {
      status: automation.extractionEvaluation.status,
      document_confidence: automation.extractionEvaluation.documentConfidence,
      fields: automation.extractionEvaluation.fields,
    },
  };
}

/** QueueWithAnnotationSchemaDto of API.md. */
export function queueDto({ queue, automation }: QueueView) {
  return {
    id: queue.id,
    humanized_id: queue.humanizedId,
    name: queue.name,
    workspace_id: queue.workspaceId,
    organization_id: queue.organizationId,
    ...automationDto(automation),
    annotation_schema: queue.annotationSchema,
    created_at: queue.createdAt.toISOString(),
  };
}

/** Document of API.md; the version and the source of each message stay inside. */
export function documentDto(document: StoredDocument) {
  return {
    id: document.id,
    queue_id: document.queueId,
    workspace_id: document.workspaceId,
    organization_id: document.organizationId,
    file_name: document.fileName,
    status: document.status,
    annotations: document.annotations,
    messages: document.messages.map(({ key, message, severity }) => ({ key, message, severity })),
    options: document.options,
    approvers: document.approvers,
    confidence: document.confidence,
    created_at: document.createdAt.toISOString(),
    updated_at: document.updatedAt.toISOString(),
  };
}

export function paginationDto(page: Page<unknown>) {
  return { page: page.page, page_size: page.pageSize, total: page.total, total_pages: Math.ceil(page.total / page.pageSize) };
}
