import { z } from "zod";
import type { RulePage } from "../domain/automation-rules.js";
import type { QueueView } from "../domain/queue-automation.js";
import {
  ACCOUNTING_ACTIONS,
  APPROVAL_ACTIONS,
  OPERATORS,
  type QueueSettings,
  type Rule,
  type RuleKind,
  SWITCH_VALUES,
} from "../domain/records.js";

// Each answer's schema sits above the mapper that produces it; the mapper's return type is the schema's, so
// the published OpenAPI cannot describe a field the code does not send.

const uuid = z.guid();
const timestamp = z.iso.datetime();
const switchState = z.enum(SWITCH_VALUES);

/** `extraction_evaluation` of QueueWithAnnotationSchemaDto, and the answer of PUT extraction-evaluation. */
export const extractionEvaluationSchema = z.object({
  status: switchState,
  document_confidence: z
    .number()
    .int()
    .min(50)
    .max(99)
    .nullable()
    .describe("The document confidence to reach: 50, 60, 70, 80, 90, 95 or 99; null until PUT extraction-evaluation sets it"),
  fields: z.array(
    z.object({
      key: z.string().describe("A field or table column of the annotation schema"),
      min_confidence: z.number().min(50).max(99),
      required: z.boolean(),
    }),
  ),
});

export function extractionEvaluationDto(settings: QueueSettings): z.output<typeof extractionEvaluationSchema> {
  return {
    status: settings.extractionEvaluation.status,
    document_confidence: settings.extractionEvaluation.documentConfidence,
    fields: settings.extractionEvaluation.fields,
  };
}

// The queue belongs to the document service, which publishes the same schema for its own queue answers; a test
// compares the two documents, so a change on one side fails until the other follows.

const columnDefinitionSchema = z.object({
  key: z.string(),
  label: z.string(),
  type: z.enum(["string", "number", "date", "enum"]),
  register_id: z.string().optional(),
});

const fieldDefinitionSchema = z.object({
  key: z.string(),
  label: z.string(),
  type: z.enum(["string", "number", "date", "enum", "table"]),
  multi_value: z.boolean().optional(),
  columns: z.array(columnDefinitionSchema).optional().describe("The columns of a table field"),
  register_id: z.string().optional(),
});

/** QueueWithAnnotationSchemaDto of API.md, the same shape (and key order) as the document service's. */
export const queueWithAnnotationSchemaSchema = z.object({
  id: uuid,
  humanized_id: z.string().describe("Lowercase slug, unique among queues; accepted wherever a queue id is"),
  name: z.string(),
  workspace_id: uuid,
  organization_id: uuid,
  accounting_automation: switchState,
  automation_rules: switchState,
  extraction_evaluation: extractionEvaluationSchema,
  annotation_schema: z.array(fieldDefinitionSchema),
  duplicate_file_rejection: switchState.describe(
    "`enabled`: uploading a file the organization already has (same SHA-256, not deleted) answers 409 `duplicate_document`",
  ),
  extraction_engine: z
    .enum(["builtin", "external"])
    .describe("`builtin`: the extraction service reads uploaded files; `external`: an outside engine posts `/extraction`"),
  created_at: timestamp,
});

export function queueDto({ queue, settings }: QueueView): z.output<typeof queueWithAnnotationSchemaSchema> {
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
    duplicate_file_rejection: queue.duplicateFileRejection ? "enabled" : "disabled",
    extraction_engine: queue.extractionEngine,
    created_at: queue.createdAt,
  };
}

/** AutomationConditionsRawDto of API.md. */
const conditionsSchema = z
  .object({
    match: z.enum(["all", "any"]),
    rules: z.array(z.object({ field: z.string(), operator: z.enum(OPERATORS), value: z.union([z.string(), z.number()]).optional() })),
  })
  .describe("An empty `rules` matches every document");

const accountingParamsSchema = z
  .object({ set: z.record(z.string(), z.union([z.string(), z.number()])) })
  .describe("apply_accounting_automation: the values to set, by field key");
const approvalRouteParamsSchema = z
  .object({ stages: z.array(z.object({ approver_ids: z.array(uuid), min_approvals: z.number().int().min(1).optional() })) })
  .describe("assign_approval_route: the stages, each approved by min_approvals (default 1) of its approvers");
const approversParamsSchema = z.object({ approver_ids: z.array(uuid) }).describe("assign_approvers");
const noParamsSchema = z.strictObject({}).describe("move_to_next_stage");

/** Rule of API.md "Automation", of either kind. */
export const ruleSchema = z.object({
  id: uuid,
  queue_id: uuid,
  kind: z.enum(["accounting", "approval"]),
  name: z.string(),
  action: z.enum([...ACCOUNTING_ACTIONS, ...APPROVAL_ACTIONS]),
  params: z.union([accountingParamsSchema, approvalRouteParamsSchema, approversParamsSchema, noParamsSchema]),
  conditions: conditionsSchema,
  position: z.number().int().min(1).describe("1-based and contiguous among the queue's rules of this kind"),
  created_at: timestamp,
  updated_at: timestamp,
});

/** Rule of one kind, as the paths of that kind answer. */
export const ruleSchemas: Readonly<Record<RuleKind, z.ZodType>> = {
  accounting: ruleSchema.extend({
    kind: z.literal("accounting"),
    action: z.enum(ACCOUNTING_ACTIONS),
    params: accountingParamsSchema,
  }),
  approval: ruleSchema.extend({
    kind: z.literal("approval"),
    action: z.enum(APPROVAL_ACTIONS),
    params: z.union([approvalRouteParamsSchema, approversParamsSchema, noParamsSchema]),
  }),
};

export function ruleDto(rule: Rule): z.output<typeof ruleSchema> {
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
