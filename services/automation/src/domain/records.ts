import type { Annotation, FieldDefinition } from "@docex/annotations";
import type { DocumentStatus } from "@docex/events";

export type { Annotation, DocumentStatus };

export const SWITCH_VALUES = ["enabled", "disabled"] as const;
export type Switch = (typeof SWITCH_VALUES)[number];

/** The three switches of a queue; each is moved by its own PATCH endpoint. */
export const SWITCHES = ["accounting_automation", "automation_rules", "extraction_evaluation"] as const;
export type SwitchName = (typeof SWITCHES)[number];

/** PUT extraction-evaluation: the only document_confidence values the spec allows. */
export const DOCUMENT_CONFIDENCE_LEVELS = [50, 60, 70, 80, 90, 95, 99] as const;

export interface ExtractionEvaluationField {
  key: string;
  /** Percentage 50-99. */
  min_confidence: number;
  required: boolean;
}

export interface ExtractionEvaluation {
  status: Switch;
  /** Null until PUT extraction-evaluation sets it. */
  documentConfidence: number | null;
  fields: ExtractionEvaluationField[];
}

/** What automation keeps per queue besides its rules. A queue never configured has the defaults. */
export interface QueueSettings {
  queueId: string;
  accountingAutomation: Switch;
  automationRules: Switch;
  extractionEvaluation: ExtractionEvaluation;
}

export function defaultSettings(queueId: string): QueueSettings {
  return {
    queueId,
    accountingAutomation: "disabled",
    automationRules: "disabled",
    extractionEvaluation: { status: "disabled", documentConfidence: null, fields: [] },
  };
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

/** The queue as the document service answers GetQueue. */
export interface QueueRecord {
  id: string;
  humanizedId: string;
  name: string;
  workspaceId: string;
  organizationId: string;
  annotationSchema: FieldDefinition[];
  /** The document service's queue option, shown in the queue answer as it shows it. */
  duplicateFileRejection: boolean;
  /** The document service's queue option: who reads uploaded files. */
  extractionEngine: "builtin" | "external";
  createdAt: string;
}
