import { CONFIDENCE_MODEL } from "./confidence-model.js";
import type { ExtractionMessage, ExtractionResult, InvoiceFieldKey, ValueSource } from "./types.js";

/**
 * A value's confidence is the probability, in %, that it is right, estimated from what supports it: a logistic model
 * over the value's evidence, trained offline on labelled real invoices (`bench/src/calibrate.ts` writes
 * `confidence-model.ts`; bench/REPORT.md shows its reliability on the held-out half).
 */

/** How a value was found: its label's strength and where the value stood; the parser's checks; agreement. */
export interface Evidence {
  label: "strong" | "weak" | "heading" | "none";
  place: "inline" | "right" | "below" | "shape";
  /** A check digit held (IBAN, VAT id, IČO) or failed. */
  check?: boolean;
  /** Another field agrees (base + tax = total, the rows' sum). */
  consistent?: boolean;
  /** The value's reading had to guess (a date with day and month both ≤ 12 and no other date to tell the order). */
  ambiguous?: boolean;
  /** The party it belongs to was found from a heading (true), or guessed (false). */
  party?: boolean;
  /** The line items' gross sum is this amount. */
  tableAgrees?: boolean;
  /** OCR: the recognizer's lowest confidence (0–100) among the words the value was read from. */
  wordConfidence?: number;
}

/** What a line-item table's confidence rests on. */
export interface TableEvidence {
  /** Every row's cells agree (quantity × unit price = amount where both are printed). */
  consistent: boolean;
  /** The rows add up to a total printed elsewhere. */
  sumAgrees: boolean;
}

/** The kind of value a field holds: the model learns one intercept per kind, as the kinds fail differently. */
export const FIELD_GROUPS = ["id", "date", "amount", "party", "tax_id", "account", "code", "table"] as const;
export type FieldGroup = (typeof FIELD_GROUPS)[number];

const GROUP_OF: Record<InvoiceFieldKey | "line_items", FieldGroup> = {
  invoice_id: "id",
  document_type: "code",
  variable_symbol: "id",
  supplier_register_id: "tax_id",
  supplier_tax_id: "tax_id",
  buyer_tax_id: "tax_id",
  issue_date: "date",
  due_date: "date",
  taxable_supply_date: "date",
  total_due: "amount",
  total_without_tax: "amount",
  total_tax: "amount",
  supplier_name: "party",
  buyer_name: "party",
  iban: "account",
  bank_account: "account",
  currency: "code",
  line_items: "table",
} as Record<InvoiceFieldKey | "line_items", FieldGroup>;

export function groupOf(key: string): FieldGroup {
  return (GROUP_OF as Record<string, FieldGroup | undefined>)[key] ?? "id";
}

/** The model's inputs, by name; absent = 0. */
export type Features = Record<string, number>;

/** The features of one value: its evidence, its field's kind and how the page was read. */
export function featuresOf(key: string, source: ValueSource, evidence: Evidence | TableEvidence): Features {
  const features: Features = { bias: 1, [`group_${groupOf(key)}`]: 1 };
  if (source === "builtin:ocr") features.ocr = 1;
  if ("label" in evidence) {
    features[`label_${evidence.label}`] = 1;
    features[`place_${evidence.place}`] = 1;
    if (evidence.check === true) features.check_held = 1;
    if (evidence.check === false) features.check_failed = 1;
    if (evidence.consistent) features.consistent = 1;
    if (evidence.ambiguous) features.ambiguous = 1;
    if (evidence.party === true) features.party_heading = 1;
    if (evidence.party === false) features.party_guessed = 1;
    if (evidence.tableAgrees) features.table_agrees = 1;
    if (evidence.wordConfidence !== undefined) features.ocr_word_doubt = (100 - evidence.wordConfidence) / 100;
  } else {
    if (evidence.consistent) features.rows_consistent = 1;
    if (evidence.sumAgrees) features.rows_sum_agrees = 1;
  }
  return features;
}

/** The model's probability for `features`, from weights by feature name. */
export function probabilityOf(features: Features, weights: Readonly<Record<string, number>>): number {
  let z = 0;
  for (const [name, value] of Object.entries(features)) z += (weights[name] ?? 0) * value;
  return 1 / (1 + Math.exp(-z));
}

/**
 * A date whose day and month could be either way round, with nothing on the page to tell the order, is read in the
 * order most invoices print; both readings fit the page. The labelled data has too few such dates to learn how often
 * the guess is right (the model's weight for them stays near its prior), so their confidence is held at the even odds
 * the page itself offers: never high enough to pass an automation threshold unseen.
 */
const AMBIGUOUS_CEILING = 50;

/** The confidence, in whole percent (1–99: the model never claims certainty), of a value read from a page. */
export function confidenceOf(key: string, source: ValueSource, evidence: Evidence | TableEvidence): number {
  const probability = probabilityOf(featuresOf(key, source, evidence), CONFIDENCE_MODEL.weights);
  const ceiling = "ambiguous" in evidence && evidence.ambiguous ? AMBIGUOUS_CEILING : 99;
  return Math.max(1, Math.min(ceiling, Math.round(probability * 100)));
}

/**
 * The confidence below which a value read from a page is left empty. A wrong value costs the person checking more
 * than an empty one: it has to be noticed before it can be corrected, and one not noticed goes on to accounting.
 * Counting a wrong value as three empty ones, the threshold with the least cost on the development half of the real
 * corpus, text layer and scans together, is 70 (`node bench/dist/real-corpus.js --sweep --scans 150`; bench/REPORT.md
 * has the sweep and the held-out half's figures at it). For a calibrated confidence that is where a value's odds of
 * being right stop paying for the checks its wrong readings cost.
 */
export const MIN_CONFIDENCE = 70;

/** How the message about a value left empty begins. */
const WITHHELD = "Read as";

/** Whether `message` is the one `withholdUnsure` gave about a value it left empty. */
export function isWithheldMessage(message: ExtractionMessage): boolean {
  return message.key !== null && message.severity === "info" && message.message.startsWith(`${WITHHELD} "`);
}

/** Sources whose values are read exactly (an e-invoice, a payment QR code): never withheld. */
const EXACT_SOURCES: ReadonlySet<ValueSource> = new Set(["builtin:einvoice", "builtin:qr"]);

/**
 * `result` without the values read from a page whose confidence is below `below` (a line-item table is kept: its
 * rows are checked one by one, and a doubtful sum already warns). Each one left empty is named in an info message on
 * its field, with what was read, so that the person checking knows where to look and nobody takes the empty field for
 * one the page does not print.
 */
export function withholdUnsure(result: ExtractionResult, below: number): ExtractionResult {
  const withheld = Object.entries(result.fields).filter(
    ([, field]) => field && !EXACT_SOURCES.has(field.source) && field.confidence < below,
  );
  if (withheld.length === 0) return result;
  const fields = { ...result.fields };
  for (const [key] of withheld) delete fields[key as InvoiceFieldKey];
  const messages = withheld.map(([key, field]) => ({
    key,
    message: `${WITHHELD} "${field?.value}" with a confidence of ${field?.confidence} %, too little to fill it in; check it on the page.`,
    severity: "info" as const,
  }));
  return { ...result, fields, messages: [...result.messages, ...messages] };
}
