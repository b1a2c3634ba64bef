import { annotationsFromService, annotationsReader, fieldDefinitionReader } from "@docex/annotations";
import { z } from "zod";

/*
 * The `*_json` fields of the protos, each with the zod schema of what it carries: one contract both ends import. A
 * sender writes the field with `toJsonText(schema, value)`, so the compiler checks the value against the schema; a
 * receiver reads it with `jsonText(schema, empty)` inside its request schema (or `readJsonText`), so malformed text is
 * INVALID_ARGUMENT naming the field. Receivers tolerate properties they do not know (a newer sender): the owner of the
 * data drops them, a consumer keeps them. DECISIONS.md says why these stay JSON rather than becoming messages.
 */

/** A `*_json` field read as JSON of the schema's shape: empty text is `empty`; anything else must parse and fit. */
export function jsonText<S extends z.ZodType>(schema: S, empty: z.input<S>) {
  return z
    .string()
    .transform((text, ctx) => {
      if (text.trim() === "") return empty;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "is not valid JSON" });
        return z.NEVER;
      }
    })
    .pipe(schema);
}

/** Reads one `*_json` field outside a request schema; throws a ZodError (field named by `path`) when it does not fit. */
export function readJsonText<S extends z.ZodType>(schema: S, empty: z.input<S>, text: string, path: string): z.output<S> {
  return z.object({ [path]: jsonText(schema, empty) }).parse({ [path]: text })[path] as z.output<S>;
}

/** The text a sender puts in a `*_json` field: a value of the schema's input type. */
export function toJsonText<S extends z.ZodType>(_schema: S, value: z.input<S>): string {
  return JSON.stringify(value);
}

const uuid = z.guid();

/** Annotations sent to the document service (ApplyDocumentChanges.annotations_json, RecordExtraction's). */
export const annotationsJson = annotationsFromService;
/** RecordExtractionRequest.extraction_json: the body of POST /documents/{id}/extraction, from the built-in engine. */
export const extractionJson = z.object({ annotations: annotationsFromService, confidence: z.number().min(0).max(100).nullable() });

/** Annotations a consumer reads (DocumentRecord.annotations_json, PlanApprovalRoute's, Validate's). */
export const annotationsReaderJson = annotationsReader;
/** A queue's annotation schema as consumers read it (Queue.annotation_schema_json, PlanApprovalRoute's). */
export const annotationSchemaJson = z.array(fieldDefinitionReader);

/** messages_json: [{key: string | null, message, severity}]. */
export const messagesJson = z
  .array(
    z.object({ key: z.string().min(1).nullable(), message: z.string().min(1).max(2_000), severity: z.enum(["error", "warning", "info"]) }),
  )
  .max(500);

/** options_json: {<field key>: [{label, value}]}, register options valid only for one document. */
export const optionsJson = z.record(z.string(), z.array(z.object({ label: z.string(), value: z.string() })).max(10_000));

/** cells_json: replacements of single cells of table fields. */
export const cellsJson = z.array(z.object({ key: z.string().min(1), row_index: z.number().int().min(0), value: z.string() })).max(10_000);

/** approval_route_json (ApplyDocumentChanges, PlanApprovalRoute): the route a document follows from stage `stage` (0-based). */
export const approvalRouteJson = z
  .object({
    stages: z
      .array(z.object({ approver_ids: z.array(uuid).min(1).max(100), min_approvals: z.number().int().min(1).optional() }))
      .min(1)
      .max(20),
    stage: z.number().int().min(0),
  })
  .refine((route) => route.stage < route.stages.length, { message: "stage must name one of the stages", path: ["stage"] })
  .refine((route) => route.stages.every((stage) => (stage.min_approvals ?? 1) <= stage.approver_ids.length), {
    message: "min_approvals cannot exceed the stage's approvers",
    path: ["stages"],
  });
export type ApprovalRouteJson = z.output<typeof approvalRouteJson>;

/** automation_blockers_json: why extraction evaluation keeps a document for manual validation. */
export const automationBlockersJson = z
  .array(z.object({ key: z.string().min(1).max(200).nullable(), reason: z.string().min(1).max(1_000) }))
  .max(200);

/** GetQueueAutomationResponse.fields_json: the extraction evaluation's fields. */
export const evaluationFieldsJson = z.array(z.object({ key: z.string(), min_confidence: z.number(), required: z.boolean() }));

/**
 * ValidateResponse.answer_json: a receiver's answer normalised from either form of the spec, always complete (empty
 * arrays when there is nothing). The document service checks what it applies (keys, cells) against the queue's schema.
 */
export const validationAnswerJson = z.object({
  replacements: z.array(z.object({ key: z.string(), value: z.string() })),
  messages: z.array(z.object({ key: z.string().nullable(), message: z.string(), severity: z.enum(["error", "warning", "info"]) })),
  cells: z.array(z.object({ key: z.string(), row_index: z.number().int().min(0), value: z.string() })),
  options: z.record(z.string(), z.array(z.object({ label: z.string(), value: z.string() }))),
});
export type ValidationAnswerJson = z.output<typeof validationAnswerJson>;

/** ReceiveEmailDocumentRequest.source_json: the mail a document came in, kept as the document's source (channel "email"). */
export const emailSourceJson = z.object({
  from: z.string().max(998).optional(),
  subject: z.string().max(2_000).optional(),
  message_id: z.string().max(998).optional(),
  received_at: z.iso.datetime().optional(),
  auth: z.object({ spf: z.string().max(40), dkim: z.string().max(40), dmarc: z.string().max(40) }).optional(),
});

/** RegisterItem.data_json: the item's own data, free-form ("{}" when it has none). */
export const registerItemDataJson = z.record(z.string(), z.unknown());
