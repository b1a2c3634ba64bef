import { type Annotation, parseDate, parseNumber } from "@docex/annotations";
import type { StoredDocument } from "../domain/records.js";

/** The header fields the built-in engine fills (API.md "Document"), as every export format reads them. */
export const INVOICE_FIELD_KEYS = [
  "invoice_id",
  "issue_date",
  "due_date",
  "taxable_supply_date",
  "currency",
  "variable_symbol",
  "iban",
  "bank_account",
  "supplier_name",
  "supplier_tax_id",
  "supplier_register_id",
  "buyer_name",
  "buyer_tax_id",
  "total_without_tax",
  "total_tax",
  "total_due",
] as const;
export type InvoiceFieldKey = (typeof INVOICE_FIELD_KEYS)[number];

/** The columns of `line_items` the engine fills. */
export const LINE_ITEM_COLUMNS = ["activity", "quantity", "unit_price", "vat_rate", "total_incl_tax"] as const;

export interface InvoiceLine {
  activity: string | undefined;
  quantity: number | undefined;
  unitPrice: number | undefined;
  vatRate: number | undefined;
  totalInclTax: number | undefined;
  /** Worked out: total_incl_tax without the line's VAT (rounded to cents); undefined without a total. */
  net: number | undefined;
  /** The cells as text, keyed by column (for CSV and JSON, which keep what the document says). */
  cells: Record<string, string>;
}

export interface TaxSummary {
  rate: number;
  base: number;
  tax: number;
}

/**
 * A document's annotations read as an invoice: text as it is, amounts as numbers (the annotation's numericValue, else
 * its text read as a number), dates as ISO dates. What the document lacks is undefined; a format that needs it says so.
 */
export interface Invoice {
  documentId: string;
  text: Partial<Record<string, string>>;
  invoiceId: string | undefined;
  issueDate: string | undefined;
  dueDate: string | undefined;
  taxableSupplyDate: string | undefined;
  currency: string | undefined;
  variableSymbol: string | undefined;
  iban: string | undefined;
  bankAccount: string | undefined;
  supplierName: string | undefined;
  supplierTaxId: string | undefined;
  supplierRegisterId: string | undefined;
  buyerName: string | undefined;
  buyerTaxId: string | undefined;
  totalWithoutTax: number | undefined;
  totalTax: number | undefined;
  totalDue: number | undefined;
  lines: InvoiceLine[];
  /** tax_details rows; when the document has none, worked out from the lines' rates and totals. */
  taxes: TaxSummary[];
}

export const roundCents = (value: number) => Math.round(value * 100) / 100;

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function numberOf(annotation: { value: string; numericValue?: number | undefined } | undefined): number | undefined {
  if (!annotation) return undefined;
  return annotation.numericValue ?? parseNumber(annotation.value);
}

function dateOf(annotation: { value: string; isoDateValue?: string | undefined } | undefined): string | undefined {
  if (!annotation) return undefined;
  return annotation.isoDateValue ?? parseDate(annotation.value);
}

function rowsOf(annotations: readonly Annotation[], key: string) {
  return annotations.find((annotation) => annotation.key === key)?.rows ?? [];
}

/** The invoice a document's annotations describe. */
export function invoiceOf(document: Pick<StoredDocument, "id" | "annotations">): Invoice {
  const byKey = new Map(document.annotations.filter((annotation) => !annotation.rows).map((annotation) => [annotation.key, annotation]));
  const text = (key: string) => nonEmpty(byKey.get(key)?.value);
  const lines = rowsOf(document.annotations, "line_items").map((row): InvoiceLine => {
    const cells = Object.fromEntries(Object.entries(row).map(([column, cell]) => [column, cell.value]));
    const vatRate = numberOf(row.vat_rate);
    const totalInclTax = numberOf(row.total_incl_tax);
    const quantity = numberOf(row.quantity);
    const unitPrice = numberOf(row.unit_price);
    const net =
      quantity !== undefined && unitPrice !== undefined
        ? roundCents(quantity * unitPrice)
        : totalInclTax !== undefined
          ? roundCents((totalInclTax * 100) / (100 + (vatRate ?? 0)))
          : undefined;
    return { activity: nonEmpty(row.activity?.value), quantity, unitPrice, vatRate, totalInclTax, net, cells };
  });
  const detailed = rowsOf(document.annotations, "tax_details")
    .map((row) => ({ rate: numberOf(row.rate), base: numberOf(row.base), tax: numberOf(row.tax) }))
    .filter((row): row is TaxSummary => row.rate !== undefined && row.base !== undefined && row.tax !== undefined);
  return {
    documentId: document.id,
    text: Object.fromEntries([...byKey].map(([key, annotation]) => [key, annotation.value])),
    invoiceId: text("invoice_id"),
    issueDate: dateOf(byKey.get("issue_date")),
    dueDate: dateOf(byKey.get("due_date")),
    taxableSupplyDate: dateOf(byKey.get("taxable_supply_date")),
    currency: text("currency")?.toUpperCase(),
    variableSymbol: text("variable_symbol"),
    iban: text("iban")?.replace(/\s/g, "").toUpperCase(),
    bankAccount: text("bank_account"),
    supplierName: text("supplier_name"),
    supplierTaxId: text("supplier_tax_id"),
    supplierRegisterId: text("supplier_register_id"),
    buyerName: text("buyer_name"),
    buyerTaxId: text("buyer_tax_id"),
    totalWithoutTax: numberOf(byKey.get("total_without_tax")),
    totalTax: numberOf(byKey.get("total_tax")),
    totalDue: numberOf(byKey.get("total_due")),
    lines,
    taxes: detailed.length ? detailed : taxesOfLines(lines),
  };
}

/** VAT per rate from the lines (base: their net amounts; tax: what their totals add to it). */
function taxesOfLines(lines: readonly InvoiceLine[]): TaxSummary[] {
  const byRate = new Map<number, TaxSummary>();
  for (const line of lines) {
    if (line.net === undefined) continue;
    const rate = line.vatRate ?? 0;
    const gross = line.totalInclTax ?? roundCents((line.net * (100 + rate)) / 100);
    const summary = byRate.get(rate) ?? { rate, base: 0, tax: 0 };
    summary.base = roundCents(summary.base + line.net);
    summary.tax = roundCents(summary.tax + gross - line.net);
    byRate.set(rate, summary);
  }
  return [...byRate.values()].sort((a, b) => a.rate - b.rate);
}

/** Why an export cannot be produced from a document: a field the format needs is missing or unreadable. */
export class MissingInvoiceData extends Error {
  constructor(
    readonly format: string,
    readonly missing: string[],
  ) {
    super(`The ${format} export needs ${missing.join(", ")}, which the document does not have (or not as a readable value).`);
  }
}

/** The values a format cannot do without; throws MissingInvoiceData naming every one that is missing. */
export function requireFields<K extends keyof Invoice>(format: string, invoice: Invoice, fields: Partial<Record<K, string>>) {
  const missing = (Object.entries(fields) as [K, string][]).filter(([field]) => invoice[field] === undefined).map(([, key]) => key);
  if (missing.length) throw new MissingInvoiceData(format, missing);
}

/** Net total: total_without_tax, else the sum of the tax summary's bases. */
export function netTotal(invoice: Invoice): number {
  return invoice.totalWithoutTax ?? roundCents(invoice.taxes.reduce((sum, tax) => sum + tax.base, 0));
}

/** Tax total: total_tax, else the sum of the tax summary. */
export function taxTotal(invoice: Invoice): number {
  return invoice.totalTax ?? roundCents(invoice.taxes.reduce((sum, tax) => sum + tax.tax, 0));
}

export const money = (value: number) => value.toFixed(2);
