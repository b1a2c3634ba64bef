import type { SchemaField } from "@docex/annotations";
import type { ExtractionMessage, ExtractionResult, FieldPosition, InvoiceFieldKey, LineItemColumn, TaxDetailRow } from "./types.js";

/** The document service's bounds on an annotation (its annotation input schema): longer or more is refused whole. */
export const MAX_VALUE_LENGTH = 10_000;
export const MAX_ROWS = 2_000;

/** An annotation in the form POST /documents/{id}/extraction takes. */
export interface ExtractedAnnotation {
  key: string;
  value: string;
  values?: { value: string }[];
  confidence?: number;
  source?: string;
  /** Where the page shows the value (API.md's `position`); none for e-invoices. */
  position?: FieldPosition;
  rows?: Record<string, { value: string }>[];
}

/** Schema keys each engine field is written to; the first one the queue's schema has wins. */
const FIELD_KEYS: Record<InvoiceFieldKey, string[]> = {
  invoice_id: ["invoice_id", "document_id"],
  document_type: ["document_type", "document_kind"],
  issue_date: ["issue_date", "date_issue", "invoice_date"],
  taxable_supply_date: ["taxable_supply_date", "date_uzp", "tax_point_date"],
  due_date: ["due_date", "date_due"],
  total_due: ["total_due", "amount_due", "amount_total"],
  currency: ["currency"],
  iban: ["iban"],
  bank_account: ["bank_account", "account_num"],
  variable_symbol: ["variable_symbol", "vs", "payment_reference"],
  supplier_name: ["supplier_name", "sender_name"],
  supplier_tax_id: ["supplier_tax_id", "sender_vat_id"],
  supplier_register_id: ["supplier_register_id", "sender_ic"],
  buyer_name: ["buyer_name", "recipient_name", "customer_name"],
  buyer_tax_id: ["buyer_tax_id", "recipient_vat_id", "customer_tax_id"],
  total_without_tax: ["total_without_tax", "amount_total_base", "total_net"],
  total_tax: ["total_tax", "amount_total_tax", "tax_total"],
};

/**
 * Messages with their keys in the queue's schema: an engine field's key becomes the schema key its value is written to
 * ("issue_date" → "date_issue"); a message about a field the schema does not have is about the document (key null).
 */
export function messagesFor(messages: ExtractionMessage[], schema: SchemaField[]): ExtractionMessage[] {
  const known = new Set(schema.flatMap((field) => [field.key, ...(field.columns ?? []).map((column) => column.key)]));
  return messages.map((message) => {
    if (message.key === null || known.has(message.key)) return message;
    const candidates = (FIELD_KEYS as Record<string, string[] | undefined>)[message.key] ?? [];
    return { ...message, key: candidates.find((key) => known.has(key)) ?? null };
  });
}

/** Schema keys of the table fields line items and the VAT breakdown are written to. */
const LINE_ITEM_TABLE_KEYS = ["line_items"];
const TAX_TABLE_KEYS = ["tax_details", "vat_details", "tax_breakdown"];

const TAX_COLUMN_KEYS: Record<keyof TaxDetailRow, string[]> = {
  rate: ["rate", "tax_detail_rate", "vat_rate"],
  base: ["base", "tax_detail_base", "amount_base"],
  tax: ["tax", "tax_detail_tax", "amount_tax"],
};

const COLUMN_KEYS: Record<LineItemColumn, string[]> = {
  activity: ["activity", "item_description", "description"],
  quantity: ["quantity", "item_quantity"],
  unit_price: ["unit_price", "item_amount_base", "item_price"],
  vat_rate: ["vat_rate", "item_rate", "tax_rate"],
  total_incl_tax: ["total_incl_tax", "item_amount_total"],
};

/**
 * A value's position as the document service takes it: each edge within the page (a word's box may overhang it by a
 * rounding), four decimals, left of right and top above bottom; none where it cannot be (a position the document
 * service would refuse would cost the whole extraction).
 */
function withinPage(position: FieldPosition | undefined): { position?: FieldPosition } {
  if (!position || !Number.isInteger(position.page) || position.page < 1) return {};
  const [left, top, right, bottom] = position.box.map((edge) => Math.round(Math.min(1, Math.max(0, edge)) * 10_000) / 10_000) as [
    number,
    number,
    number,
    number,
  ];
  if (![left, top, right, bottom].every(Number.isFinite) || left > right || top > bottom) return {};
  return { position: { page: position.page, box: [left, top, right, bottom] } };
}

/**
 * Maps an extraction onto a queue's schema: only keys the schema has (the document service refuses
 * unknown ones), multi-value fields as `values`, the first table field as line items. What the document service
 * would refuse is left out with an `info` message in `clamped` (a value over MAX_VALUE_LENGTH is dropped, never cut:
 * a cut value would be a wrong one; rows past MAX_ROWS are left out), so that one oversized value never keeps
 * a whole extraction from being recorded.
 */
export function annotationsFor(
  result: ExtractionResult,
  schema: SchemaField[],
): { annotations: ExtractedAnnotation[]; confidence: number | null; clamped: ExtractionMessage[] } {
  const byKey = new Map(schema.map((field) => [field.key, field]));
  const annotations: ExtractedAnnotation[] = [];
  const confidences: number[] = [];
  const clamped: ExtractionMessage[] = [];
  for (const [engineKey, candidates] of Object.entries(FIELD_KEYS) as [InvoiceFieldKey, string[]][]) {
    const field = result.fields[engineKey];
    const target = candidates.map((key) => byKey.get(key)).find((entry) => entry && entry.type !== "table");
    if (!field || !target) continue;
    if (field.value.length > MAX_VALUE_LENGTH) {
      clamped.push({
        key: target.key,
        message: `The value read is longer than ${MAX_VALUE_LENGTH} characters; it was left out.`,
        severity: "info",
      });
      continue;
    }
    annotations.push({
      key: target.key,
      value: field.value,
      ...(target.multi_value ? { values: [{ value: field.value }] } : {}),
      confidence: field.confidence,
      source: field.source,
      ...withinPage(field.position),
    });
    confidences.push(field.confidence);
  }
  const tables = schema.filter((field) => field.type === "table" && field.columns?.length);
  // Line items go to the table keyed as such, else to the first table that is not the VAT breakdown's.
  const lineTable =
    tables.find((field) => LINE_ITEM_TABLE_KEYS.includes(field.key)) ?? tables.find((field) => !TAX_TABLE_KEYS.includes(field.key));
  const taxTable = tables.find((field) => TAX_TABLE_KEYS.includes(field.key) && field !== lineTable);
  for (const [table, read, columnKeys] of [
    [lineTable, result.lineItems, COLUMN_KEYS],
    [taxTable, result.taxDetails, TAX_COLUMN_KEYS],
  ] as const) {
    if (!table || !read?.rows.length) continue;
    const annotation = tableAnnotation(table, read, columnKeys as Record<string, string[]>, clamped);
    if (!annotation) continue;
    annotations.push(annotation);
    confidences.push(read.confidence);
  }
  const confidence = confidences.length ? Math.round(confidences.reduce((sum, value) => sum + value, 0) / confidences.length) : null;
  return { annotations, confidence, clamped };
}

/**
 * A table field's annotation from rows read: each engine column to the first of its keys the table has; cells over
 * MAX_VALUE_LENGTH and rows past MAX_ROWS left out with an `info` message; none when no row keeps a cell.
 */
function tableAnnotation(
  table: SchemaField,
  read: { rows: Partial<Record<string, string>>[]; confidence: number; source: string },
  columnKeys: Record<string, string[]>,
  clamped: ExtractionMessage[],
): ExtractedAnnotation | undefined {
  const present = new Set(table.columns?.map((column) => column.key));
  const mapping = Object.entries(columnKeys)
    .map(([column, keys]) => [column, keys.find((key) => present.has(key))] as const)
    .filter((entry): entry is readonly [string, string] => entry[1] !== undefined);
  let longCells = 0;
  const allRows = read.rows
    .map((row) => {
      const cells: Record<string, { value: string }> = {};
      for (const [column, key] of mapping) {
        const value = row[column];
        if (value === undefined) continue;
        if (value.length > MAX_VALUE_LENGTH) longCells += 1;
        else cells[key] = { value };
      }
      return cells;
    })
    .filter((cells) => Object.keys(cells).length > 0);
  const rows = allRows.slice(0, MAX_ROWS);
  if (longCells > 0)
    clamped.push({
      key: table.key,
      message: `${longCells} cell(s) longer than ${MAX_VALUE_LENGTH} characters were left out.`,
      severity: "info",
    });
  if (allRows.length > MAX_ROWS)
    clamped.push({
      key: table.key,
      message: `The table has ${allRows.length} rows; the first ${MAX_ROWS} were kept and the rest left out.`,
      severity: "info",
    });
  return rows.length ? { key: table.key, value: "", rows, confidence: read.confidence, source: read.source } : undefined;
}
