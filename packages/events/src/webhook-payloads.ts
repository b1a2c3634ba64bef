import { annotationSchema } from "@docex/annotations";
import { z } from "zod";

/*
 * What integrators receive and answer (spec "Events", "Payload shapes", "Responses to validation
 * webhooks"). Bodies keep the spec's field names, camelCase inside annotations and answers.
 */

export const WEBHOOK_TYPES = ["document_status_changed", "queue_created", "initial_document_validation", "document_validation"] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];

export const documentStatusChangedPayloadSchema = z
  .object({
    document_id: z.string(),
    queue_id: z.string(),
    status: z.string(),
    webhook_event: z.literal("document_status_changed"),
  })
  .describe("Sent when a document's status changes by API or by user interaction.");

export const queueCreatedPayloadSchema = z
  .object({
    workspace_id: z.string(),
    queue_id: z.string(),
    webhook_event: z.literal("queue_created"),
  })
  .describe("Sent when a queue is created in a workspace.");

export const validationRequestPayloadSchema = z
  .object({
    document_id: z.string(),
    queue_id: z.string(),
    user_id: z.string().nullable().describe("The user whose edit triggered the call; null for initial_document_validation."),
    previous_annotations: z.array(annotationSchema),
    annotations: z.array(annotationSchema),
    webhook_event: z.enum(["initial_document_validation", "document_validation"]),
  })
  .describe("Sent to a queue's external validation link; the answer can change values, add messages and supply options.");

export const SEVERITIES = ["error", "warning", "info"] as const;

export const validationMessageSchema = z.object({
  message: z.string(),
  severity: z.enum(SEVERITIES),
});

export const validationAnswerObjectSchema = z.object({
  key: z.string().describe("The field key the entry refers to."),
  value: z.string().optional().describe("Replacement value of the annotation."),
  validationResults: z.array(validationMessageSchema).optional(),
  results: z
    .array(z.object({ key: z.string(), rowIndex: z.number().int().min(0), value: z.string() }))
    .optional()
    .describe("Cell-level replacements of a table field such as line_items."),
  options: z
    .array(z.object({ label: z.string(), value: z.string() }))
    .optional()
    .describe("Register options shown only for this document."),
});

/** Either form the spec allows: an array of `{key, value}`, or an object with `results`. */
export const validationAnswerSchema = z.union([
  z.array(z.object({ key: z.string(), value: z.string() })),
  z.object({ results: z.array(validationAnswerObjectSchema) }),
]);

export type DocumentStatusChangedPayload = z.infer<typeof documentStatusChangedPayloadSchema>;
export type QueueCreatedPayload = z.infer<typeof queueCreatedPayloadSchema>;
export type ValidationRequestPayload = z.infer<typeof validationRequestPayloadSchema>;
export type ValidationAnswerObject = z.infer<typeof validationAnswerObjectSchema>;
export type ValidationAnswer = z.infer<typeof validationAnswerSchema>;
