import type { Annotation, FieldContent, RememberedField } from "./records.js";

/** How many of a field's most recent confirmations decide its learned value. */
export const CONFIRMATION_WINDOW = 5;

/** The source the document service shows on values learning filled in. */
export const LEARNED_SOURCE = "learned";

export function contentKey(content: FieldContent): string {
  return JSON.stringify([content.value, content.values]);
}

export function isEmptyContent(content: FieldContent): boolean {
  return content.value.trim() === "" && content.values.every((value) => value.trim() === "");
}

/**
 * The value a supplier's field is learned to have, from its confirmations (newest first):
 * - only the last CONFIRMATION_WINDOW count, so a supplier that changes its bank account is followed
 *   after a few confirmations while a single typo does not displace a value confirmed again and again;
 * - the most frequent value wins, a tie goes to the one confirmed most recently;
 * - with a single confirmation, that value;
 * - when at least two confirmations all differ, nothing: the field changes with every document
 *   (invoice numbers, dates, totals) and filling it from an earlier one would be wrong;
 * - a winning empty value (confirmed as having nothing) fills nothing.
 */
export function learnedValue(confirmations: readonly FieldContent[]): FieldContent | undefined {
  const window = confirmations.slice(0, CONFIRMATION_WINDOW);
  if (window.length === 0) return undefined;
  const tally = new Map<string, { content: FieldContent; count: number; newest: number }>();
  window.forEach((content, position) => {
    const key = contentKey(content);
    const entry = tally.get(key);
    if (entry) entry.count += 1;
    else tally.set(key, { content, count: 1, newest: position });
  });
  let winner: { content: FieldContent; count: number; newest: number } | undefined;
  for (const entry of tally.values()) {
    if (!winner || entry.count > winner.count || (entry.count === winner.count && entry.newest < winner.newest)) winner = entry;
  }
  if (!winner) return undefined;
  if (window.length > 1 && winner.count === 1) return undefined;
  return isEmptyContent(winner.content) ? undefined : winner.content;
}

/**
 * The probability, in %, that a remembered value is the next document's: the rule of succession over the recent
 * confirmations, (those that gave this value + 1) / (all + 2). One confirmation gives 67, five agreeing 86; a pin
 * counts as one more confirmation of its value.
 */
export function rememberedConfidence(content: FieldContent, confirmations: readonly FieldContent[], pinned: boolean): number {
  const window = confirmations.slice(0, CONFIRMATION_WINDOW);
  const agreeing = window.filter((entry) => contentKey(entry) === contentKey(content)).length + (pinned ? 1 : 0);
  return Math.round((100 * (agreeing + 1)) / (window.length + (pinned ? 1 : 0) + 2));
}

/** The fields the memory fills for a supplier: pinned values, then learned values of the fields without a pin. */
export function rememberedFields(pins: ReadonlyMap<string, string>, confirmations: ReadonlyMap<string, FieldContent[]>): RememberedField[] {
  const fields: RememberedField[] = [...pins].map(([key, value]) => {
    const content = { value, values: [] };
    return { key, content, pinned: true, confidence: rememberedConfidence(content, confirmations.get(key) ?? [], true) };
  });
  for (const [key, history] of confirmations) {
    if (pins.has(key)) continue;
    const content = learnedValue(history);
    if (content) fields.push({ key, content, pinned: false, confidence: rememberedConfidence(content, history, false) });
  }
  return fields.sort((a, b) => a.key.localeCompare(b.key));
}

function contentOf(annotation: Annotation | undefined): FieldContent {
  return { value: annotation?.value ?? "", values: (annotation?.values ?? []).map((value) => value.value) };
}

/**
 * Sources whose values a pinned value may replace: the AI's, and an earlier learned one. A value without a
 * source was given at upload by whoever sent the document, so it is kept like a person's.
 */
const REPLACEABLE_BY_PIN = new Set<string | undefined>(["ai", LEARNED_SOURCE, "builtin:pdf_text", "builtin:ocr"]);

/**
 * Values the built-in extraction engine guessed from a PDF's text or OCR (its e-invoice values, `builtin:einvoice`,
 * are read exactly and stay): what people confirmed for the supplier is the better answer, so a learned value
 * replaces them too, not only empty fields.
 */
const REPLACEABLE_BY_LEARNED = new Set<string | undefined>(["builtin:pdf_text", "builtin:ocr"]);

/**
 * Fields that differ on every invoice of a supplier: a learned value (which may rest on one learn) never replaces
 * what the engine read for them, it only fills them when empty.
 */
const PER_DOCUMENT_KEYS = new Set([
  "invoice_id",
  "issue_date",
  "date_issue",
  "due_date",
  "date_due",
  "total_due",
  "amount_total",
  "variable_symbol",
]);

/**
 * The annotations to send to the document service for a document whose annotations are `current`:
 * - a value a person set (`source: "user"`) is never touched, even an empty one: it is their decision;
 * - a pinned value fills an empty field and replaces a value the AI (or learning) put there, but not one
 *   set by automation or validation, which follow rules the queue was given on purpose, nor one given at upload;
 * - a learned value fills a field that is empty (absent, or without any text), and corrects a value the built-in
 *   engine guessed from text or OCR (`builtin:pdf_text`, `builtin:ocr`) unless the field differs per invoice.
 * Annotations that would not change anything are left out, so a repeated plan is empty.
 */
export function planFill(current: readonly Annotation[], memory: readonly RememberedField[]): Annotation[] {
  const byKey = new Map(current.map((annotation) => [annotation.key, annotation]));
  const plan: Annotation[] = [];
  for (const field of memory) {
    const annotation = byKey.get(field.key);
    if (annotation?.source === "user") continue;
    const present = contentOf(annotation);
    const empty = isEmptyContent(present);
    const wanted = field.pinned
      ? empty || REPLACEABLE_BY_PIN.has(annotation?.source)
      : empty || (REPLACEABLE_BY_LEARNED.has(annotation?.source) && !PER_DOCUMENT_KEYS.has(field.key));
    if (!wanted || contentKey(present) === contentKey(field.content)) continue;
    plan.push({
      key: field.key,
      value: field.content.value,
      ...(field.content.values.length ? { values: field.content.values.map((value) => ({ value })) } : {}),
      source: LEARNED_SOURCE,
      confidence: field.confidence,
    });
  }
  return plan;
}
