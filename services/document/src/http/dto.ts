import { annotationSchema } from "@docex/annotations";
import { DOCUMENT_STATUSES } from "@docex/events";
import { queueWithAnnotationSchemaSchema, queueDto as sharedQueueDto } from "@docex/queue-dto";
import { z } from "zod";
import type { DocumentView } from "../domain/duplicates.js";
import type { QueueView } from "../domain/hierarchy.js";
import { type ApprovalState, MESSAGE_SEVERITIES, type Workspace } from "../domain/records.js";

// Each answer's schema sits above the mapper that produces it; the mapper's return type is the schema's, so
// the published OpenAPI cannot describe a field the code does not send.

const uuid = z.guid();
const timestamp = z.iso.datetime();

/** API.md: `{id, humanized_id, name, organization_id, created_at}`. */
export const workspaceSchema = z.object({
  id: uuid,
  humanized_id: z.string().describe("Lowercase slug, unique among workspaces; accepted wherever a workspace id is"),
  name: z.string(),
  organization_id: uuid,
  created_at: timestamp,
});

export function workspaceDto(workspace: Workspace): z.output<typeof workspaceSchema> {
  return {
    id: workspace.id,
    humanized_id: workspace.humanizedId,
    name: workspace.name,
    organization_id: workspace.organizationId,
    created_at: workspace.createdAt.toISOString(),
  };
}

// The automation service answers its switch routes with the same queue: both build it with @docex/queue-dto.
export { queueWithAnnotationSchemaSchema };

export function queueDto({ queue, automation, inboxEmail }: QueueView): z.output<typeof queueWithAnnotationSchemaSchema> {
  return sharedQueueDto({ ...queue, inboxEmail, createdAt: queue.createdAt.toISOString() }, automation);
}

const decisionSchema = z.object({ user_id: uuid, at: timestamp });

export const approvalSchema = z
  .object({
    current_stage: z.number().int().min(1).describe("The stage the document is in, counted from 1"),
    stages: z.array(
      z.object({
        approver_ids: z.array(uuid),
        min_approvals: z.number().int().min(1),
        approvals: z.array(decisionSchema).describe("Who approved this stage, and when, in order"),
        completed: z.boolean(),
      }),
    ),
    rejection: decisionSchema
      .extend({ stage: z.number().int().min(1) })
      .nullable()
      .describe("Who rejected the document, in which stage"),
  })
  .nullable()
  .describe("The approval route the document follows (null when it has none); `approvers` are its current stage's");

function approvalDto(approval: ApprovalState | null): z.output<typeof approvalSchema> {
  if (!approval) return null;
  const rejection = approval.decisions.find((decision) => decision.decision === "rejected");
  return {
    current_stage: approval.stage + 1,
    stages: approval.stages.map((stage, index) => {
      const approvals = approval.decisions
        .filter((decision) => decision.stage === index && decision.decision === "approved")
        .map((decision) => ({ user_id: decision.userId, at: decision.at }));
      return {
        approver_ids: stage.approverIds,
        min_approvals: stage.minApprovals,
        approvals,
        completed: approvals.length >= stage.minApprovals,
      };
    }),
    rejection: rejection ? { user_id: rejection.userId, at: rejection.at, stage: rejection.stage + 1 } : null,
  };
}

/** Document of API.md; the version and the source of each message stay inside. */
export const documentSchema = z.object({
  id: uuid,
  queue_id: uuid,
  workspace_id: uuid,
  organization_id: uuid,
  file_name: z.string(),
  status: z.enum(DOCUMENT_STATUSES),
  annotations: z.array(annotationSchema).describe("The fields the caller may see (their user schema hides the others)"),
  messages: z
    .array(
      z.object({
        key: z.string().nullable().describe("The field the message is about; null for the whole document"),
        message: z.string(),
        severity: z.enum(MESSAGE_SEVERITIES),
      }),
    )
    .describe("Validation messages; an `error` blocks moves towards export"),
  options: z
    .record(z.string(), z.array(z.object({ label: z.string(), value: z.string() })))
    .describe("Choices offered per field key, e.g. from a register"),
  approvers: z.array(uuid).describe("User ids of the approvers assigned by approval automation (of the current stage)"),
  approval: approvalSchema,
  confidence: z.number().min(0).max(100).nullable().describe("The extraction's document confidence, a percentage"),
  automation_blockers: z
    .array(
      z.object({
        key: z.string().nullable().describe("The field whose threshold was missed; null for the document as a whole"),
        reason: z.string(),
      }),
    )
    .describe(
      "Why extraction evaluation kept the document for manual validation, as its last run found (a confidence below a " +
        "threshold, a required field empty); [] when evaluation is off or let the document through",
    ),
  duplicates: z
    .array(uuid)
    .describe(
      "Documents of the organization (not deleted) with the same supplier (tax id, else register id) and invoice_id, or the " +
        "same uploaded file, oldest first; only those the caller may read (a `warning` message counts the others). [] when none",
    ),
  source: z
    .object({
      channel: z.enum(["api", "email"]),
      from: z.string().optional().describe("The mail's sender (envelope MAIL FROM, else the From header)"),
      subject: z.string().optional(),
      message_id: z.string().optional(),
      received_at: timestamp.optional(),
      auth: z
        .object({ spf: z.string(), dkim: z.string(), dmarc: z.string() })
        .optional()
        .describe("SPF, DKIM and DMARC verdicts of the mail (`pass`, `fail`, `none`, ...), as the intake judged them"),
    })
    .describe("How the document came in: `api` (an upload) or `email` (the queue's inbox, with what the mail said)"),
  external_id: z.string().nullable().describe("The accounting system's id of the document, recorded with export-result; null until then"),
  exports: z
    .array(
      z.object({
        export_id: uuid.nullable().describe("The queue's export that produced it; null for an outcome an integrator recorded"),
        run_id: uuid.nullable().describe("The export run (GET /export-runs/{run_id}); null for an integrator's outcome"),
        format: z.string().nullable().describe("csv, json, isdoc, ubl, pohoda or money_s3; null for an integrator's outcome"),
        status: z.enum(["exported", "export_failed"]),
        at: timestamp,
      }),
    )
    .describe("Every export of the document, oldest first"),
  created_at: timestamp,
  updated_at: timestamp,
});

export function documentDto(document: DocumentView): z.output<typeof documentSchema> {
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
    approval: approvalDto(document.approval),
    confidence: document.confidence,
    automation_blockers: document.automationBlockers,
    duplicates: document.duplicates,
    source: document.source,
    external_id: document.externalId,
    exports: document.exports,
    created_at: document.createdAt.toISOString(),
    updated_at: document.updatedAt.toISOString(),
  };
}
