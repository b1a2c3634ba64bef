/*
 * What docex sends and what a validation webhook answers, as the API defines them ("Events", "Payload
 * shapes", "Responses to validation webhooks"). Field names are the API's: snake_case at the top of a
 * payload, camelCase inside annotations and answers. Declared here rather than imported so that the
 * package has no dependencies; its tests prove these types equal docex's own schemas.
 */

/** The webhook types, each the `webhook_event` of its payload. */
export const WEBHOOK_EVENTS = ["document_status_changed", "queue_created", "initial_document_validation", "document_validation"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** `error` blocks moving the document on (for example to an ERP); `warning` blocks nothing; `info` informs. */
export const SEVERITIES = ["error", "warning", "info"] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * Where on a page a value was read: `box` is [left, top, right, bottom], fractions (0..1) of the page's width and
 * height from its top-left corner. Absent for values no page shows (typed by a person, learned, from an XML file).
 */
export interface Position {
  /** From 1. */
  page: number;
  box: [number, number, number, number];
}

/** One value: an extra value of a multi-value field, or one cell of a table row. */
export interface AnnotationValue {
  value: string;
  numericValue?: number | undefined;
  /** YYYY-MM-DD. */
  isoDateValue?: string | undefined;
  position?: Position | undefined;
}

/** An extracted field as a payload carries it. */
export interface Annotation {
  key: string;
  value: string;
  /** The further values of a multi-value field such as bank_account. */
  values?: AnnotationValue[] | undefined;
  numericValue?: number | undefined;
  /** YYYY-MM-DD. */
  isoDateValue?: string | undefined;
  /** Percentage, 0-100. */
  confidence?: number | undefined;
  /** Who set the value: "ai", "user", "learned", "automation", "validation", … */
  source?: string | undefined;
  position?: Position | undefined;
  /** Table fields (line_items): one object per row, keyed by column key. */
  rows?: Record<string, AnnotationValue>[] | undefined;
}

/** `document_status_changed`: a document's status changed by API or by user interaction. */
export interface DocumentStatusChangedPayload {
  document_id: string;
  queue_id: string;
  status: string;
  webhook_event: "document_status_changed";
}

/** `queue_created`: a queue was created in a workspace. */
export interface QueueCreatedPayload {
  workspace_id: string;
  queue_id: string;
  webhook_event: "queue_created";
}

/** `initial_document_validation` (after extraction) and `document_validation` (after a user's edit). */
export interface ValidationRequestPayload {
  document_id: string;
  queue_id: string;
  /** The user whose edit triggered the call; null for initial_document_validation. */
  user_id: string | null;
  previous_annotations: Annotation[];
  annotations: Annotation[];
  webhook_event: "initial_document_validation" | "document_validation";
}

export type WebhookPayload = DocumentStatusChangedPayload | QueueCreatedPayload | ValidationRequestPayload;

export interface ValidationMessage {
  message: string;
  severity: Severity;
}

/** A cell-level replacement in a table field such as line_items. */
export interface CellReplacement {
  key: string;
  /** 0-based. */
  rowIndex: number;
  value: string;
}

/** A register option offered for this document only. */
export interface RegisterOption {
  label: string;
  value: string;
}

/** One entry of the object-form answer, about the field `key`. */
export interface ValidationAnswerObject {
  key: string;
  /** Replaces the annotation's value. */
  value?: string | undefined;
  validationResults?: ValidationMessage[] | undefined;
  results?: CellReplacement[] | undefined;
  options?: RegisterOption[] | undefined;
}

/** One entry of the array-form answer. */
export interface ValueReplacement {
  key: string;
  value: string;
}

/** Array form: replacement values only. */
export type ValidationAnswerList = ValueReplacement[];

/** Object form: values, messages, cells and options. */
export interface ValidationAnswerResults {
  results: ValidationAnswerObject[];
}

/** Either form the API accepts as the answer to a validation call. */
export type ValidationAnswer = ValidationAnswerList | ValidationAnswerResults;
