import { firstValuePageQuery } from "@docex/kit/http";
import { z } from "zod";
import { ACCOUNTING_ACTIONS, APPROVAL_ACTIONS, DOCUMENT_CONFIDENCE_LEVELS, type RuleKind, SWITCH_VALUES } from "../domain/records.js";
import { conditionsInput, PARAMS_SCHEMAS } from "../domain/rule-definitions.js";

// Both cases spelt out instead of the `i` flag: the pattern is published in OpenAPI, where regexes have no flags.
const uuid = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, "must be a UUID")
  .transform((id) => id.toLowerCase());
const name = z.string().trim().min(1).max(200);
const ACTIONS = { accounting: ACCOUNTING_ACTIONS, approval: APPROVAL_ACTIONS } as const;

/**
 * An object whose properties depend on the action; checked against it in the domain, so that one 400 names
 * every problem of the rule. Its OpenAPI form shows each action's shape, taken from the schema that checks it.
 */
function paramsOf(kind: RuleKind) {
  return z.record(z.string(), z.unknown()).meta({
    description: "The parameters of `action`, in the shape titled with that action.",
    anyOf: ACTIONS[kind].map((action) => {
      const { $schema: _ignored, ...shape } = z.toJSONSchema(PARAMS_SCHEMAS[action], { io: "input", unrepresentable: "any" });
      return { title: action, ...shape };
    }),
  });
}

export const switchBody = z.strictObject({ status: z.enum(SWITCH_VALUES) });

export const extractionEvaluationBody = z.strictObject({
  document_confidence: z.literal(DOCUMENT_CONFIDENCE_LEVELS, { error: `must be one of ${DOCUMENT_CONFIDENCE_LEVELS.join(", ")}` }),
  fields: z
    .array(z.strictObject({ key: z.string().min(1).max(64), min_confidence: z.number().min(50).max(99), required: z.boolean() }))
    .max(300),
});

export function createRuleBody(kind: RuleKind) {
  return z.strictObject({ name, action: z.enum(ACTIONS[kind]), params: paramsOf(kind), conditions: conditionsInput });
}

export function patchRuleBody(kind: RuleKind) {
  return z
    .strictObject({
      name: name.optional(),
      action: z.enum(ACTIONS[kind]).optional(),
      params: paramsOf(kind).optional(),
      conditions: conditionsInput.optional(),
    })
    .refine((patch) => Object.keys(patch).length > 0, "send at least one of name, action, params, conditions");
}

export const orderBody = z.strictObject({ rule_ids: z.array(uuid).max(1_000) });

export const listQuery = firstValuePageQuery;
