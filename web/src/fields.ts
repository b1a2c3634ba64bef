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
  /** Why extraction evaluation kept the document for a person, as far as this field goes (`automation_blockers`). */
  blockers: string[];
  options: { label: string; value: string }[];
}

/** Where a page shows a value (API.md's `position`): box = [left, top, right, bottom], fractions of the page. */
export interface Position {
  page: number;
  box: number[];
}

/** An annotation as PATCH /documents/{id}/annotations takes it: the text a person sees, no read-only parts. */
export interface AnnotationInput {
  key: string;
  value: string;
  /** The place of the words a person clicked to fill it (click-to-fill). */
  position?: Position;
  values?: { value: string }[];
  rows?: Record<string, { value: string }>[];
}

type Schema = Pick<Queue, "annotation_schema">;

/**
 * The field of the schema a message or blocker `key` is about: the field of that key, the table of a column key, or
 * the field a path starts with (`line_items.0.total_incl_tax`); undefined for the document as a whole.
 */
export function fieldKeyOf(queue: Schema, key: string | null): string | undefined {
  if (key === null) return undefined;
  const head = key.split(".")[0];
  return queue.annotation_schema.find(
    (definition) => definition.key === key || definition.key === head || definition.columns?.some((column) => column.key === key),
  )?.key;
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
      messages: document.messages.filter((message) => fieldKeyOf(queue, message.key) === definition.key),
      blockers: (document.automation_blockers ?? [])
        .filter((blocker) => fieldKeyOf(queue, blocker.key) === definition.key)
        .map((blocker) => blocker.reason),
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
export function documentMessages(queue: Schema, messages: readonly Message[]): Message[] {
  return messages.filter((message) => fieldKeyOf(queue, message.key) === undefined);
}

/** Why extraction evaluation kept the document for a person, of no field the schema shows: shown above the fields. */
export function documentBlockers(queue: Schema, document: Pick<DocumentDto, "automation_blockers">): string[] {
  return (document.automation_blockers ?? [])
    .filter((blocker) => fieldKeyOf(queue, blocker.key) === undefined)
    .map((blocker) => blocker.reason);
}

/**
 * The edit of one field: its new text (with the place of the words clicked to fill it, if it was), the other values
 * of a multi-value field kept as they are.
 */
export function valueEdit(document: DocumentDto, key: string, value: string, position?: Position): AnnotationInput {
  const current = document.annotations.find((annotation) => annotation.key === key);
  const values = current?.values?.map((entry) => ({ value: entry.value }));
  return { key, value, ...(values?.length ? { values } : {}), ...(position ? { position } : {}) };
}

const clamp = (fraction: number) => Math.min(1, Math.max(0, fraction));

/**
 * The place of a value filled by clicking words: the word's box, or — a word added with Shift on the same page — the
 * union of the boxes clicked so far. A word of another page starts again from it (a value sits on one page).
 */
export function filledPosition(before: Position | undefined, page: number, box: readonly number[], append: boolean): Position {
  const [left = 0, top = 0, right = 0, bottom = 0] = box.map(clamp);
  const word = [Math.min(left, right), Math.min(top, bottom), Math.max(left, right), Math.max(top, bottom)];
  if (!append || !before || before.page !== page) return { page, box: word };
  const [l = 0, t = 0, r = 0, b = 0] = before.box;
  return { page, box: [Math.min(l, word[0]!), Math.min(t, word[1]!), Math.max(r, word[2]!), Math.max(b, word[3]!)] };
}

export const samePosition = (a: Position | undefined | null, b: Position | undefined | null) =>
  JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

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
