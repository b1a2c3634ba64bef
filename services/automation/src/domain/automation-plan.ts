import { type FieldDefinition, locateKey, parseDate, parseNumber } from "@docex/annotations";
import { conditionsHold, type RegisterCheck } from "./conditions.js";
import { type EvaluationVerdict, evaluateExtraction } from "./extraction-evaluation.js";
import type { Annotation, ApprovalStage, DocumentStatus, QueueSettings, Rule } from "./records.js";

/** The document as a run sees it: the extraction's result, or the document as re-read after a conflict. */
export interface DocumentSnapshot {
  annotations: Annotation[];
  confidence: number | null;
  approvers: string[];
}

export interface PlanInput {
  settings: QueueSettings;
  /** In position order. */
  accountingRules: Rule[];
  approvalRules: Rule[];
  schema: readonly FieldDefinition[];
  document: DocumentSnapshot;
  inRegister: RegisterCheck;
  /** False after the document refused the status move: the rest of the change is still worth applying. */
  mayMoveStatus: boolean;
}

export interface ApprovalRoute {
  stages: ApprovalStage[];
  /** Index of the current stage. */
  stage: number;
}

export interface AutomationPlan {
  /** Annotations the accounting rules set, to replace those of their keys. */
  annotations: Annotation[];
  /** The approvers the approval rules assign; empty when they assign none. */
  approvers: string[];
  route: ApprovalRoute | null;
  /** Where the document goes; absent: it stays where it is. */
  status?: Extract<DocumentStatus, "ready_to_export" | "in_approval">;
  /** Ids of the rules whose conditions matched, in the order they ran. */
  appliedRules: string[];
  /** Rules whose conditions could not be decided (a register did not answer): nothing skips validation then. */
  undecidedRules: string[];
  /** Null when extraction evaluation is off. */
  evaluation: EvaluationVerdict | null;
}

export function isEmptyPlan(plan: AutomationPlan): boolean {
  return plan.annotations.length === 0 && plan.approvers.length === 0 && plan.status === undefined && plan.appliedRules.length === 0;
}

/** The annotation an accounting rule's `set` writes: the text, with the typed value derived by the parser the document service uses. */
function setAnnotation(schema: readonly FieldDefinition[], key: string, value: string | number): Annotation {
  const text = String(value);
  const location = locateKey(schema, key);
  const type = location?.kind === "field" ? location.field.type : "string";
  const annotation: Annotation = { key, value: text, source: "automation" };
  const numericValue = type === "number" ? parseNumber(text) : undefined;
  const isoDateValue = type === "date" ? parseDate(text) : undefined;
  if (numericValue !== undefined) annotation.numericValue = numericValue;
  if (isoDateValue !== undefined) annotation.isoDateValue = isoDateValue;
  return annotation;
}

const union = (...lists: string[][]) => [...new Set(lists.flat())];

const NO_APPROVAL = { route: null, approvers: [] as string[] };

/**
 * Approval rules in order: a route assigns its stages (its first stage's approvers are the document's),
 * `assign_approvers` adds approvers to the current stage, `move_to_next_stage` makes the route's next stage current.
 * The ids of the rules that fired are appended to `appliedRules`.
 */
async function runApprovalRules(
  rules: Rule[],
  matches: (rule: Rule) => Promise<boolean>,
  appliedRules: string[],
): Promise<{ route: ApprovalRoute | null; approvers: string[] }> {
  let route = null as ApprovalRoute | null;
  let added: string[] = [];
  for (const rule of rules) {
    if (!(await matches(rule))) continue;
    appliedRules.push(rule.id);
    const params = rule.params;
    if (rule.action === "assign_approval_route" && "stages" in params) {
      route = { stages: params.stages, stage: 0 };
      added = [];
    } else if (rule.action === "assign_approvers" && "approver_ids" in params) {
      added = union(added, params.approver_ids);
    } else if (rule.action === "move_to_next_stage" && route && route.stage < route.stages.length - 1) {
      route = { ...route, stage: route.stage + 1 };
      added = [];
    }
  }
  return { route, approvers: union(route?.stages[route.stage]?.approver_ids ?? [], added) };
}

export interface ApprovalPlan {
  route: ApprovalRoute | null;
  /** The route's current stage's approvers and those added to it; empty when no rule assigns any. */
  approvers: string[];
  appliedRules: string[];
  /** Rules whose conditions could not be decided (a register did not answer). */
  undecidedRules: string[];
}

/**
 * The approval part of `planAutomation` alone, on a document's annotations as they are: what a person's move to
 * `in_approval` assigns. Nothing while `automation_rules` is disabled, as for a run.
 */
export async function planApprovalRoute(input: {
  settings: QueueSettings;
  approvalRules: Rule[];
  schema: readonly FieldDefinition[];
  annotations: Annotation[];
  inRegister: RegisterCheck;
}): Promise<ApprovalPlan> {
  const appliedRules: string[] = [];
  const undecidedRules: string[] = [];
  if (input.settings.automationRules !== "enabled") return { ...NO_APPROVAL, appliedRules, undecidedRules };
  const matches = async (rule: Rule): Promise<boolean> => {
    const verdict = await conditionsHold(rule.conditions, input.schema, input.annotations, input.inRegister);
    if (verdict === "unknown") undecidedRules.push(rule.id);
    return verdict === true;
  };
  return { ...(await runApprovalRules(input.approvalRules, matches, appliedRules)), appliedRules, undecidedRules };
}

/**
 * What automation does with one document. Accounting rules run in order, each seeing what the earlier
 * ones set (so of two rules setting one field, the later wins); a value a person typed is never
 * overwritten. Approval rules then run in order on the result: a route assigns its stages (its first
 * stage's approvers are the document's), `assign_approvers` adds approvers to the current stage,
 * `move_to_next_stage` makes the next stage of the route current. Last, extraction evaluation decides
 * whether the document skips manual validation: `in_approval` when it has approvers, else `ready_to_export`.
 *
 * Switches: `automation_rules` is the master switch of all rules; accounting rules also need
 * `accounting_automation`. Extraction evaluation has its own switch.
 */
export async function planAutomation(input: PlanInput): Promise<AutomationPlan> {
  const { settings, schema } = input;
  let annotations = [...input.document.annotations];
  const changed = new Map<string, Annotation>();
  const appliedRules: string[] = [];
  const undecidedRules: string[] = [];

  const matches = async (rule: Rule): Promise<boolean> => {
    const verdict = await conditionsHold(rule.conditions, schema, annotations, input.inRegister);
    if (verdict === "unknown") undecidedRules.push(rule.id);
    return verdict === true;
  };

  if (settings.automationRules === "enabled" && settings.accountingAutomation === "enabled") {
    for (const rule of input.accountingRules) {
      if (!("set" in rule.params) || !(await matches(rule))) continue;
      appliedRules.push(rule.id);
      for (const [key, value] of Object.entries(rule.params.set)) {
        const current = annotations.find((annotation) => annotation.key === key);
        if (current?.source === "user") continue;
        const next = setAnnotation(schema, key, value);
        changed.set(key, next);
        annotations = [...annotations.filter((annotation) => annotation.key !== key), next];
      }
    }
  }

  const { route, approvers } =
    settings.automationRules === "enabled" ? await runApprovalRules(input.approvalRules, matches, appliedRules) : NO_APPROVAL;

  let evaluation: EvaluationVerdict | null = null;
  let status: AutomationPlan["status"];
  if (settings.extractionEvaluation.status === "enabled") {
    evaluation = evaluateExtraction(settings.extractionEvaluation, schema, annotations, input.document.confidence, new Set(changed.keys()));
    if (undecidedRules.length)
      evaluation = { met: false, blockers: [...evaluation.blockers, { key: null, reason: "a rule's conditions could not be decided" }] };
    if (evaluation.met && input.mayMoveStatus)
      status = approvers.length > 0 || input.document.approvers.length > 0 ? "in_approval" : "ready_to_export";
  }

  return {
    annotations: [...changed.values()],
    approvers,
    route,
    ...(status ? { status } : {}),
    appliedRules,
    undecidedRules,
    evaluation,
  };
}
