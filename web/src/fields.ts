import type { Annotation, DocumentDto, FieldDefinition, Message, Problem, Queue } from "./api/types.ts";

/** Below this confidence (%) a value is flagged, unless the queue's extraction evaluation sets the field's own minimum. */
export const LOW_CONFIDENCE = 80;

export type Row = Record<string, string>;

export interface FieldView {
  definition: FieldDefinition;
  value: string;
  rows: Row[];
  confidence: number | undefined;
  low: boolean;
  messages: Message[];
  options: { label: string; value: string }[];
}

/** An annotation as PATCH /documents/{id}/annotations takes it: the text a person sees, no read-only parts. */
export interface AnnotationInput {
  key: string;
  value: string;
  values?: { value: string }[];
  rows?: Record<string, { value: string }>[];
}

/** The fields of `document` in the order of the queue's schema, each with its value, confidence and messages. */
export function fieldViews(queue: Pick<Queue, "annotation_schema" | "extraction_evaluation">, document: DocumentDto): FieldView[] {
  const byKey = new Map(document.annotations.map((annotation) => [annotation.key, annotation]));
  const minimum = new Map((queue.extraction_evaluation?.fields ?? []).map((field) => [field.key, field.min_confidence]));
  return queue.annotation_schema.map((definition) => {
    const annotation = byKey.get(definition.key);
    const confidence = annotation?.confidence ?? undefined;
    const value = annotation?.value ?? "";
    return {
      definition,
      value,
      rows: rowsOf(annotation, definition),
      confidence,
      low: confidence !== undefined && value !== "" && confidence < (minimum.get(definition.key) ?? LOW_CONFIDENCE),
      messages: document.messages.filter((message) => message.key === definition.key),
      options: document.options?.[definition.key] ?? [],
    };
  });
}

function rowsOf(annotation: Annotation | undefined, definition: FieldDefinition): Row[] {
  if (definition.type !== "table") return [];
  const columns = (definition.columns ?? []).map((column) => column.key);
  return (annotation?.rows ?? []).map((row) => Object.fromEntries(columns.map((key) => [key, row[key]?.value ?? ""])));
}

/** Messages of no field, or of a key the schema does not show: shown above the fields. */
export function documentMessages(queue: Pick<Queue, "annotation_schema">, messages: readonly Message[]): Message[] {
  const keys = new Set(queue.annotation_schema.map((definition) => definition.key));
  return messages.filter((message) => message.key === null || !keys.has(message.key));
}

/** The edit of one field: its new text, the other values of a multi-value field kept as they are. */
export function valueEdit(document: DocumentDto, key: string, value: string): AnnotationInput {
  const current = document.annotations.find((annotation) => annotation.key === key);
  const values = current?.values?.map((entry) => ({ value: entry.value }));
  return values?.length ? { key, value, values } : { key, value };
}

/** The edit of a table field: every row, empty rows left out. */
export function tableEdit(key: string, rows: readonly Row[]): AnnotationInput {
  return {
    key,
    value: "",
    rows: rows
      .filter((row) => Object.values(row).some((cell) => cell.trim() !== ""))
      .map((row) => Object.fromEntries(Object.entries(row).map(([column, value]) => [column, { value }]))),
  };
}

/** The messages a refused confirmation names: the problem's `messages`, else its `errors` by field path. */
export function blockingMessages(problem: Problem): Message[] {
  if (problem.messages?.length) return problem.messages;
  return (problem.errors ?? []).map((error) => ({ key: error.path || null, message: error.message, severity: "error" as const }));
}
