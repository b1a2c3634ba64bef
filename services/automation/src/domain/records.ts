import type { Annotation } from "@docex/annotations";
import type { DocumentStatus } from "@docex/events";
import {
  type ExtractionEvaluationField,
  type ExtractionEvaluationSettings,
  QUEUE_SWITCH_DEFAULTS,
  type QueueFacts,
  type QueueSwitches,
  SWITCH_VALUES,
  type Switch,
  type SwitchName,
} from "@docex/queue-dto";

export type { Annotation, DocumentStatus, Switch, SwitchName };
export { SWITCH_VALUES };

/** PUT extraction-evaluation: the only document_confidence values the spec allows. */
export const DOCUMENT_CONFIDENCE_LEVELS = [50, 60, 70, 80, 90, 95, 99] as const;

export type { ExtractionEvaluationField };
export type ExtractionEvaluation = ExtractionEvaluationSettings;

/** What automation keeps per queue besides its rules. A queue never configured has the defaults. */
export interface QueueSettings extends QueueSwitches {
  queueId: string;
}

/** The defaults are shared with document, whose projection of the switches shows them for a queue it has seen no change of. */
export function defaultSettings(queueId: string): QueueSettings {
  return { queueId, ...QUEUE_SWITCH_DEFAULTS, extractionEvaluation: { ...QUEUE_SWITCH_DEFAULTS.extractionEvaluation, fields: [] } };
}

export const RULE_KINDS = ["accounting", "approval"] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

export const ACCOUNTING_ACTIONS = ["apply_accounting_automation"] as const;
export const APPROVAL_ACTIONS = ["assign_approval_route", "assign_approvers", "move_to_next_stage"] as const;
export type AccountingAction = (typeof ACCOUNTING_ACTIONS)[number];
export type ApprovalAction = (typeof APPROVAL_ACTIONS)[number];
export type RuleAction = AccountingAction | ApprovalAction;

export const ACTIONS_OF: Readonly<Record<RuleKind, readonly RuleAction[]>> = {
  accounting: ACCOUNTING_ACTIONS,
  approval: APPROVAL_ACTIONS,
};

export const OPERATORS = ["eq", "neq", "contains", "gt", "gte", "lt", "lte", "exists", "not_exists", "in_register"] as const;
export type Operator = (typeof OPERATORS)[number];

export interface Condition {
  field: string;
  operator: Operator;
  value?: string | number;
}

/** AutomationConditionsRawDto of API.md; an empty `rules` matches every document. */
export interface Conditions {
  match: "all" | "any";
  rules: Condition[];
}

export interface ApprovalStage {
  approver_ids: string[];
  min_approvals?: number;
}

export type RuleParams =
  | { set: Record<string, string | number> }
  | { stages: ApprovalStage[] }
  | { approver_ids: string[] }
  | Record<string, never>;

export interface Rule {
  id: string;
  queueId: string;
  organizationId: string;
  kind: RuleKind;
  name: string;
  action: RuleAction;
  params: RuleParams;
  conditions: Conditions;
  /** 1-based, contiguous within the queue's rules of one kind. */
  position: number;
  createdAt: Date;
  updatedAt: Date;
}

/** The queue as the document service answers GetQueue: document's part of the queue answer its switch routes give. */
export type QueueRecord = QueueFacts;
