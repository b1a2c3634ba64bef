import { z } from "zod";
import { ACCOUNTING_ACTIONS, APPROVAL_ACTIONS, DOCUMENT_CONFIDENCE_LEVELS, type RuleKind, SWITCH_VALUES } from "../domain/records.js";
import { conditionsInput } from "../domain/rule-definitions.js";

const uuid = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, "must be a UUID")
  .transform((id) => id.toLowerCase());
const name = z.string().trim().min(1).max(200);
/** An object whose properties depend on the action; checked against it in the domain. */
const params = z.record(z.string(), z.unknown());

export const switchBody = z.strictObject({ status: z.enum(SWITCH_VALUES) });

export const extractionEvaluationBody = z.strictObject({
  document_confidence: z.literal(DOCUMENT_CONFIDENCE_LEVELS, { error: `must be one of ${DOCUMENT_CONFIDENCE_LEVELS.join(", ")}` }),
  fields: z
    .array(z.strictObject({ key: z.string().min(1).max(64), min_confidence: z.number().min(50).max(99), required: z.boolean() }))
    .max(300),
});

const ACTIONS = { accounting: ACCOUNTING_ACTIONS, approval: APPROVAL_ACTIONS } as const;

export function createRuleBody(kind: RuleKind) {
  return z.strictObject({ name, action: z.enum(ACTIONS[kind]), params, conditions: conditionsInput });
}

export function patchRuleBody(kind: RuleKind) {
  return z
    .strictObject({
      name: name.optional(),
      action: z.enum(ACTIONS[kind]).optional(),
      params: params.optional(),
      conditions: conditionsInput.optional(),
    })
    .refine((patch) => Object.keys(patch).length > 0, "send at least one of name, action, params, conditions");
}

export const orderBody = z.strictObject({ rule_ids: z.array(uuid).max(1_000) });

const firstOf = (value: unknown) => (Array.isArray(value) ? value[0] : value);

export const listQuery = z.object({
  page: z.preprocess(firstOf, z.coerce.number().int().min(1).max(1_000_000).default(1)),
  page_size: z.preprocess(firstOf, z.coerce.number().int().min(1).max(100).default(20)),
});
