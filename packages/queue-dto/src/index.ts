import { type FieldDefinition, fieldDefinitionSchema } from "@docex/annotations";
import { z } from "zod";

// QueueWithAnnotationSchemaDto of API.md is answered by two services: document (GET and POST /queues), which owns
// the queue, and automation (PATCH of a switch), which owns the switches. Both build it here, so the shape and the
// published OpenAPI cannot drift apart. Each answer's schema sits above the mapper that produces it.

export const SWITCH_VALUES = ["enabled", "disabled"] as const;
export type Switch = (typeof SWITCH_VALUES)[number];

/**
 * A queue's three switches, named as automation's `configuration.changed` names their resource (and as the answer
 * names its fields); each is moved by its own PATCH endpoint of automation.
 */
export const SWITCH_NAMES = ["accounting_automation", "automation_rules", "extraction_evaluation"] as const;
export type SwitchName = (typeof SWITCH_NAMES)[number];

export const EXTRACTION_ENGINES = ["builtin", "external"] as const;
export type ExtractionEngine = (typeof EXTRACTION_ENGINES)[number];

export interface ExtractionEvaluationField {
  key: string;
  /** Percentage 50-99. */
  min_confidence: number;
  required: boolean;
}

export interface ExtractionEvaluationSettings {
  status: Switch;
  /** Null until PUT extraction-evaluation sets it. */
  documentConfidence: number | null;
  fields: ExtractionEvaluationField[];
}

/** Automation's part of a queue: its switches and the extraction evaluation's thresholds. */
export interface QueueSwitches {
  accountingAutomation: Switch;
  automationRules: Switch;
  extractionEvaluation: ExtractionEvaluationSettings;
}

/** The switches of a queue never configured: what automation keeps for it, and so what every queue shows then. */
export const QUEUE_SWITCH_DEFAULTS: Readonly<QueueSwitches> = Object.freeze({
  accountingAutomation: "disabled",
  automationRules: "disabled",
  extractionEvaluation: Object.freeze({ status: "disabled", documentConfidence: null, fields: [] }),
}) as QueueSwitches;

/** Document's part of a queue. */
export interface QueueFacts {
  id: string;
  humanizedId: string;
  name: string;
  workspaceId: string;
  organizationId: string;
  annotationSchema: FieldDefinition[];
  duplicateFileRejection: boolean;
  extractionEngine: ExtractionEngine;
  /** Days a document is kept before it is purged; null: kept. */
  documentLifetimeDays: number | null;
  /** `<humanized_id>.<token>@<INTAKE_MAIL_DOMAIN>`: mail to it becomes documents of the queue. */
  inboxEmail: string;
  /** Addresses and `@domain`s that may mail the inbox; empty: anyone. */
  inboxAllowedSenders: string[];
  /** What people confirm in validation feeds the supplier memory (values and where they are printed). */
  learnFromValidation: boolean;
  /** ISO 8601. */
  createdAt: string;
}

const uuid = z.guid();
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

export function extractionEvaluationDto(evaluation: ExtractionEvaluationSettings): z.output<typeof extractionEvaluationSchema> {
  return { status: evaluation.status, document_confidence: evaluation.documentConfidence, fields: evaluation.fields };
}

/** A queue's document lifetime in days (1 to 3650, the database's CHECK too); null: documents are kept. */
export const documentLifetimeDays = z.number().int().min(1).max(3650).nullable();

/** QueueWithAnnotationSchemaDto of API.md. */
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
    .enum(EXTRACTION_ENGINES)
    .describe("`builtin`: the extraction service reads uploaded files; `external`: an outside engine posts `/extraction`"),
  document_lifetime_days: documentLifetimeDays.describe(
    "Documents older than this many days are purged with their files, annotations and projections; null: kept",
  ),
  inbox_email: z
    .string()
    .describe(
      "`<humanized_id>.<token>@<INTAKE_MAIL_DOMAIN>`: each accepted attachment of a mail to it becomes a document of the queue; " +
        "`POST /queues/{queue_id}/inbox-email` replaces the token (the old address stops at once)",
    ),
  inbox_allowed_senders: z
    .array(z.string())
    .describe("Sender addresses and `@domain`s the inbox takes mail from (others are refused with 550); empty: anyone"),
  learn_from_validation: z
    .boolean()
    .describe(
      "true (default): when a person moves a document on from `to_validate`, its confirmed values feed the supplier's memory " +
        "(learning) and where the supplier prints each field (extraction) without a `/learn` call",
    ),
  created_at: z.iso.datetime(),
});

export function queueDto(queue: QueueFacts, switches: QueueSwitches): z.output<typeof queueWithAnnotationSchemaSchema> {
  return {
    id: queue.id,
    humanized_id: queue.humanizedId,
    name: queue.name,
    workspace_id: queue.workspaceId,
    organization_id: queue.organizationId,
    accounting_automation: switches.accountingAutomation,
    automation_rules: switches.automationRules,
    extraction_evaluation: extractionEvaluationDto(switches.extractionEvaluation),
    annotation_schema: queue.annotationSchema,
    duplicate_file_rejection: queue.duplicateFileRejection ? "enabled" : "disabled",
    extraction_engine: queue.extractionEngine,
    document_lifetime_days: queue.documentLifetimeDays,
    inbox_email: queue.inboxEmail,
    inbox_allowed_senders: queue.inboxAllowedSenders,
    learn_from_validation: queue.learnFromValidation,
    created_at: queue.createdAt,
  };
}
