import { zipSync } from "fflate";
import { z } from "zod";
import { INVOICE_FIELD_KEYS, type Invoice, LINE_ITEM_COLUMNS } from "../invoice.js";
import { csvFile } from "./csv.js";
import { isdocInvoice } from "./isdoc.js";
import { jsonFile } from "./json.js";
import { moneyS3Invoice } from "./money-s3.js";
import { pohodaInvoice } from "./pohoda.js";
import { ublInvoice } from "./ubl.js";

export const EXPORT_FORMATS = ["csv", "json", "isdoc", "ubl", "pohoda", "money_s3"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const COLUMN_KEY = /^[a-z][a-z0-9_]{0,63}$/;

/** CSV: the columns (field keys, line item column keys, `document_id`) in order, and the delimiter. */
export const csvOptionsSchema = z.strictObject({
  columns: z
    .array(z.string().regex(COLUMN_KEY, "a field key (lower case letters, digits, _)"))
    .min(1)
    .max(100)
    .refine((columns) => new Set(columns).size === columns.length, "a column is named twice")
    .default(["document_id", ...INVOICE_FIELD_KEYS])
    .describe(
      "Field keys, line item column keys (then one row per line item) or `document_id`; default: document_id and the engine's header fields",
    ),
  delimiter: z.enum([",", ";", "\t", "|"]).default(";").describe("Default `;` (what spreadsheets of decimal-comma locales read)"),
});

const noOptions = z.strictObject({});

/** The options each format takes; an export's options are checked against its format's schema. */
export const FORMAT_OPTIONS = {
  csv: csvOptionsSchema,
  json: noOptions,
  isdoc: noOptions,
  ubl: noOptions,
  pohoda: noOptions,
  money_s3: noOptions,
} as const satisfies Record<ExportFormat, z.ZodType>;

export type ExportOptions = z.output<typeof csvOptionsSchema> | Record<string, never>;

/** Formats whose file is one document: a run of several gives a ZIP of them. */
const PER_DOCUMENT: Record<ExportFormat, ((invoice: Invoice) => Buffer) | undefined> = {
  csv: undefined,
  json: undefined,
  isdoc: isdocInvoice,
  ubl: ublInvoice,
  pohoda: pohodaInvoice,
  money_s3: moneyS3Invoice,
};

const EXTENSIONS: Record<ExportFormat, string> = {
  csv: "csv",
  json: "json",
  isdoc: "isdoc",
  ubl: "xml",
  pohoda: "xml",
  money_s3: "xml",
};

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: "text/csv; charset=utf-8",
  json: "application/json",
  isdoc: "application/xml",
  ubl: "application/xml",
  pohoda: "application/xml",
  money_s3: "application/xml",
};

export interface ExportFile {
  name: string;
  contentType: string;
  bytes: Buffer;
}

/** One document's file in a per-document format (throws MissingInvoiceData when the document lacks what it needs). */
export function documentFile(format: ExportFormat, invoice: Invoice, options: unknown): ExportFile {
  return runFile(format, [invoice], options, `export-${invoice.documentId}`);
}

/**
 * The file of a run: CSV and JSON hold every document; the XML formats give one file per document, and a ZIP of
 * them when the run has more than one. Throws MissingInvoiceData naming a document that lacks what its format needs.
 */
export function runFile(format: ExportFormat, invoices: readonly Invoice[], options: unknown, baseName: string): ExportFile {
  const perDocument = PER_DOCUMENT[format];
  if (!perDocument) {
    const bytes = format === "csv" ? csvFile(invoices, csvOptionsSchema.parse(options ?? {})) : jsonFile(invoices);
    return { name: `${baseName}.${EXTENSIONS[format]}`, contentType: CONTENT_TYPES[format], bytes };
  }
  const files = invoices.map((invoice) => ({ name: `${invoice.documentId}.${EXTENSIONS[format]}`, bytes: perDocument(invoice) }));
  if (files.length === 1) return { name: files[0]!.name, contentType: CONTENT_TYPES[format], bytes: files[0]!.bytes };
  const zipped = zipSync(Object.fromEntries(files.map((file) => [file.name, new Uint8Array(file.bytes)])), { level: 6 });
  return { name: `${baseName}.zip`, contentType: "application/zip", bytes: Buffer.from(zipped) };
}

export { LINE_ITEM_COLUMNS };
