import type { SchemaField } from "@docex/annotations";
import type { ExtractionResult, InvoiceFieldKey, LineItemColumn } from "./types.js";

/** An annotation in the form POST /documents/{id}/extraction takes. */
export interface ExtractedAnnotation {
  key: string;
  value: string;
  values?: { value: string }[];
  confidence?: number;
  source?: string;
  rows?: Record<string, { value: string }>[];
}

/** Schema keys each engine field is written to; the first one the queue's schema has wins. */
const FIELD_KEYS: Record<InvoiceFieldKey, string[]> = {
  invoice_id: ["invoice_id", "document_id"],
  issue_date: ["issue_date", "date_issue", "invoice_date"],
  due_date: ["due_date", "date_due"],
  total_due: ["total_due", "amount_due", "amount_total"],
  currency: ["currency"],
  iban: ["iban"],
  bank_account: ["bank_account", "account_num"],
  variable_symbol: ["variable_symbol", "vs", "payment_reference"],
  supplier_name: ["supplier_name", "sender_name"],
  supplier_tax_id: ["supplier_tax_id", "sender_vat_id"],
  supplier_register_id: ["supplier_register_id", "sender_ic"],
};

const COLUMN_KEYS: Record<LineItemColumn, string[]> = {
  activity: ["activity", "item_description", "description"],
  quantity: ["quantity", "item_quantity"],
  unit_price: ["unit_price", "item_amount_base", "item_price"],
  vat_rate: ["vat_rate", "item_rate", "tax_rate"],
  total_incl_tax: ["total_incl_tax", "item_amount_total"],
};

/**
 * Maps an extraction onto a queue's schema: only keys the schema has (the document service refuses
 * unknown ones), multi-value fields as `values`, the first table field as line items.
 */
export function annotationsFor(
  result: ExtractionResult,
  schema: SchemaField[],
): { annotations: ExtractedAnnotation[]; confidence: number | null } {
  const byKey = new Map(schema.map((field) => [field.key, field]));
  const annotations: ExtractedAnnotation[] = [];
  const confidences: number[] = [];
  for (const [engineKey, candidates] of Object.entries(FIELD_KEYS) as [InvoiceFieldKey, string[]][]) {
    const field = result.fields[engineKey];
    const target = candidates.map((key) => byKey.get(key)).find((entry) => entry && entry.type !== "table");
    if (!field || !target) continue;
    annotations.push({
      key: target.key,
      value: field.value,
      ...(target.multi_value ? { values: [{ value: field.value }] } : {}),
      confidence: field.confidence,
      source: field.source,
    });
    confidences.push(field.confidence);
  }
  const table = schema.find((field) => field.type === "table" && field.columns?.length);
  if (table && result.lineItems?.rows.length) {
    const columnKeys = new Set(table.columns?.map((column) => column.key));
    const mapping = (Object.entries(COLUMN_KEYS) as [LineItemColumn, string[]][])
      .map(([column, keys]) => [column, keys.find((key) => columnKeys.has(key))] as const)
      .filter((entry): entry is readonly [LineItemColumn, string] => entry[1] !== undefined);
    const rows = result.lineItems.rows
      .map((row) => {
        const cells: Record<string, { value: string }> = {};
        for (const [column, key] of mapping) if (row[column] !== undefined) cells[key] = { value: row[column] as string };
        return cells;
      })
      .filter((cells) => Object.keys(cells).length > 0);
    if (rows.length) {
      annotations.push({ key: table.key, value: "", rows, confidence: result.lineItems.confidence, source: result.lineItems.source });
      confidences.push(result.lineItems.confidence);
    }
  }
  const confidence = confidences.length ? Math.round(confidences.reduce((sum, value) => sum + value, 0) / confidences.length) : null;
  return { annotations, confidence };
}
