import { type FieldDefinition, type KeyLocation, locateKey, typeProblem, valueTypeOf } from "@docex/annotations";
import type { FieldError } from "@docex/kit/errors";
import { isUuid, UUID_PATTERN } from "@docex/kit/ids";
import { fieldErrorsOf } from "@docex/kit/validation";
import { z } from "zod";
import { type Conditions, OPERATORS, type Operator, type RuleAction, type RuleParams } from "./records.js";

const uuid = z
  .string()
  .regex(UUID_PATTERN, "must be a UUID")
  .transform((id) => id.toLowerCase());
const approverIds = z
  .array(uuid)
  .min(1)
  .max(50)
  .refine((ids) => new Set(ids).size === ids.length, "lists an approver more than once");
const fieldKey = z.string().min(1).max(64);
const conditionValue = z.union([z.string().max(1_000), z.number().finite()]);

/** AutomationConditionsRawDto: the shape; whether the fields exist is checked against the queue's schema. */
export const conditionsInput = z.strictObject({
  match: z.enum(["all", "any"]),
  rules: z
    .array(
      z
        .strictObject({ field: fieldKey, operator: z.enum(OPERATORS), value: conditionValue.optional() })
        // A register is named by its UUID; one spelling of it keeps lookups and comparisons simple.
        .transform((condition) =>
          condition.operator === "in_register" && typeof condition.value === "string"
            ? { ...condition, value: condition.value.toLowerCase() }
            : condition,
        ),
    )
    .max(50),
});

/** The params of each action (API.md "Automation"). */
export const PARAMS_SCHEMAS: Readonly<Record<RuleAction, z.ZodType<RuleParams>>> = {
  apply_accounting_automation: z.strictObject({
    set: z
      .record(fieldKey, z.union([z.string().max(10_000), z.number().finite()]))
      .refine((set) => Object.keys(set).length > 0, "must set at least one field")
      .refine((set) => Object.keys(set).length <= 100, "sets at most 100 fields"),
  }),
  assign_approval_route: z.strictObject({
    stages: z
      .array(
        z
          .strictObject({ approver_ids: approverIds, min_approvals: z.number().int().min(1).optional() })
          .refine((stage) => (stage.min_approvals ?? 1) <= stage.approver_ids.length, {
            message: "min_approvals exceeds the number of approvers",
            path: ["min_approvals"],
          }),
      )
      .min(1)
      .max(20),
  }),
  assign_approvers: z.strictObject({ approver_ids: approverIds }),
  move_to_next_stage: z.strictObject({}),
};

/** Checks params against the action's schema; every problem is named under `params.`. */
export function parseParams(action: RuleAction, params: unknown): { params?: RuleParams; errors: FieldError[] } {
  const result = PARAMS_SCHEMAS[action].safeParse(params);
  return result.success ? { params: result.data, errors: [] } : { errors: fieldErrorsOf(result.error, "params") };
}

/** Facts about the queue that a rule's fields and ids must agree with. */
export interface RuleContext {
  schema: readonly FieldDefinition[];
  /** Whether `registerId` is a register of this queue. */
  registerOfQueue(registerId: string): Promise<boolean>;
  /** Whether `userId` is a member of the queue's organization. */
  isMember(userId: string): Promise<boolean>;
}

const COMPARISONS: ReadonlySet<Operator> = new Set(["gt", "gte", "lt", "lte"]);
const WITHOUT_VALUE: ReadonlySet<Operator> = new Set(["exists", "not_exists"]);
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function isIsoDate(text: string): boolean {
  if (!ISO_DATE.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

/** What's wrong with `value` as a comparison value for a key of `type`, or undefined. */
function valueProblem(type: FieldDefinition["type"], operator: Operator, value: string | number): string | undefined {
  if (operator === "contains") return typeof value === "string" && value !== "" ? undefined : "must be a non-empty text";
  if (type === "number") return typeof value === "number" ? undefined : `must be a number: the field is of type number`;
  if (type === "date")
    return typeof value === "string" && isIsoDate(value) ? undefined : "must be a date YYYY-MM-DD: the field is of type date";
  return typeof value === "string" ? undefined : `must be a text: the field is of type ${type}`;
}

async function checkCondition(
  condition: Conditions["rules"][number],
  at: string,
  context: RuleContext,
  errors: FieldError[],
): Promise<void> {
  const location: KeyLocation | undefined = locateKey(context.schema, condition.field);
  if (!location) {
    errors.push({
      path: `${at}.field`,
      message: `unknown field key "${condition.field}": the queue's annotation schema has no such field`,
    });
    return;
  }
  const type = valueTypeOf(location);
  const { operator, value } = condition;
  if (WITHOUT_VALUE.has(operator)) {
    if (value !== undefined) errors.push({ path: `${at}.value`, message: `${operator} takes no value` });
    return;
  }
  if (type === "table") {
    errors.push({ path: `${at}.operator`, message: `${condition.field} is a table: only exists and not_exists apply; use its columns` });
    return;
  }
  if (value === undefined) {
    errors.push({ path: `${at}.value`, message: `${operator} needs a value` });
    return;
  }
  if (COMPARISONS.has(operator) && type !== "number" && type !== "date") {
    errors.push({ path: `${at}.operator`, message: `${operator} compares numbers and dates; ${condition.field} is of type ${type}` });
    return;
  }
  if (operator === "in_register") {
    if (typeof value !== "string" || !isUuid(value))
      errors.push({ path: `${at}.value`, message: "must be the UUID of a register of this queue" });
    else if (!(await context.registerOfQueue(value.toLowerCase())))
      errors.push({ path: `${at}.value`, message: `register ${value} is not a register of this queue` });
    return;
  }
  const problem = valueProblem(type, operator, value);
  if (problem) errors.push({ path: `${at}.value`, message: problem });
}

async function checkParams(params: RuleParams, context: RuleContext, errors: FieldError[]): Promise<void> {
  if ("set" in params) {
    for (const [key, value] of Object.entries(params.set)) {
      const at = `params.set.${key}`;
      const location = locateKey(context.schema, key);
      if (!location) errors.push({ path: at, message: `unknown field key "${key}": the queue's annotation schema has no such field` });
      else if (location.kind === "column")
        errors.push({ path: at, message: `"${key}" is a column of ${location.table.key}; rules set fields, not cells` });
      else if (location.field.type === "table") errors.push({ path: at, message: `"${key}" is a table; rules set fields, not tables` });
      else {
        const type = location.field.type;
        // The document service reads the text the same way (the shared parser of @docex/annotations).
        const problem = typeof value === "string" ? typeProblem(type, value) : undefined;
        if (type === "number" && problem) errors.push({ path: at, message: `${problem}: the field is of type number` });
        else if (type === "date" && typeof value === "number")
          errors.push({ path: at, message: "must be a date text: the field is of type date" });
        else if (type === "date" && problem) errors.push({ path: at, message: `${problem}: the field is of type date` });
        else if ((type === "string" || type === "enum") && typeof value !== "string")
          errors.push({ path: at, message: `must be a text: the field is of type ${type}` });
      }
    }
    return;
  }
  const approvers: Array<{ id: string; at: string }> = [];
  if ("stages" in params)
    for (const [stageIndex, stage] of params.stages.entries())
      for (const [index, id] of stage.approver_ids.entries())
        approvers.push({ id, at: `params.stages.${stageIndex}.approver_ids.${index}` });
  if ("approver_ids" in params)
    for (const [index, id] of params.approver_ids.entries()) approvers.push({ id, at: `params.approver_ids.${index}` });
  const verdicts = await Promise.all(approvers.map((approver) => context.isMember(approver.id)));
  approvers.forEach((approver, index) => {
    if (!verdicts[index]) errors.push({ path: approver.at, message: `user ${approver.id} is not a member of the queue's organization` });
  });
}

/**
 * What is wrong with a rule for this queue: conditions must name fields of its schema with operators and
 * values that fit their types, `in_register` a register of the queue; `set` must name fields with values of
 * their type; approvers must be members. Only the parts given are checked.
 */
export async function ruleProblems(rule: { params?: RuleParams; conditions?: Conditions }, context: RuleContext): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const [index, condition] of (rule.conditions?.rules ?? []).entries())
    await checkCondition(condition, `conditions.rules.${index}`, context, errors);
  if (rule.params) await checkParams(rule.params, context, errors);
  return errors;
}
