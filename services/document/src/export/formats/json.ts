import { INVOICE_FIELD_KEYS, type Invoice } from "../invoice.js";

/**
 * One JSON file for the run: `{documents: [...]}`, each with its id, the engine's header fields as the document's
 * text (null when absent), and its line items and tax details as rows of text.
 */
export function jsonFile(invoices: readonly Invoice[]): Buffer {
  const documents = invoices.map((invoice) => ({
    document_id: invoice.documentId,
    ...Object.fromEntries(INVOICE_FIELD_KEYS.map((key) => [key, invoice.text[key] ?? null])),
    line_items: invoice.lines.map((line) => line.cells),
    tax_details: invoice.taxes.map((tax) => ({ rate: tax.rate, base: tax.base, tax: tax.tax })),
  }));
  return Buffer.from(`${JSON.stringify({ documents }, null, 2)}\n`, "utf8");
}
