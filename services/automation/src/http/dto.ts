import {
  extractionEvaluationSchema,
  queueWithAnnotationSchemaSchema,
  extractionEvaluationDto as sharedExtractionEvaluationDto,
  queueDto as sharedQueueDto,
} from "@docex/queue-dto";
import { z } from "zod";
import type { QueueView } from "../domain/queue-automation.js";
import { ACCOUNTING_ACTIONS, APPROVAL_ACTIONS, OPERATORS, type QueueSettings, type Rule, type RuleKind } from "../domain/records.js";

// Each answer's schema sits above the mapper that produces it; the mapper's return type is the schema's, so
// the published OpenAPI cannot describe a field the code does not send.

const uuid = z.guid();
const timestamp = z.iso.datetime();

// The queue belongs to the document service; both services build its answer with @docex/queue-dto, so the shape
// (and the published schema) is one.
export { extractionEvaluationSchema, queueWithAnnotationSchemaSchema };

export function extractionEvaluationDto(settings: QueueSettings): z.output<typeof extractionEvaluationSchema> {
  return sharedExtractionEvaluationDto(settings.extractionEvaluation);
}

export function queueDto({ queue, settings }: QueueView): z.output<typeof queueWithAnnotationSchemaSchema> {
  return sharedQueueDto(queue, settings);
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
