import { type Invoice, LINE_ITEM_COLUMNS } from "../invoice.js";

export interface CsvOptions {
  columns: string[];
  delimiter: string;
}

const LINE_COLUMNS: ReadonlySet<string> = new Set(LINE_ITEM_COLUMNS);

/** RFC 4180: a value with the delimiter, a quote or a line break is quoted, its quotes doubled. */
function cell(value: string, delimiter: string): string {
  return value.includes(delimiter) || /["\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * One CSV file for the run: a header of the chosen columns, then a row per document, or, when a line item column is
 * chosen, a row per line item with the document's fields repeated. Values are the document's text, as validated.
 * `document_id` is a column too.
 */
export function csvFile(invoices: readonly Invoice[], options: CsvOptions): Buffer {
  const { columns, delimiter } = options;
  const perLine = columns.some((column) => LINE_COLUMNS.has(column));
  const header = columns.map((column) => cell(column, delimiter)).join(delimiter);
  const rows = invoices.flatMap((invoice) => {
    const field = (column: string) => (column === "document_id" ? invoice.documentId : (invoice.text[column] ?? ""));
    const lines = perLine ? (invoice.lines.length ? invoice.lines : [undefined]) : [undefined];
    return lines.map((line) =>
      columns.map((column) => cell(LINE_COLUMNS.has(column) ? (line?.cells[column] ?? "") : field(column), delimiter)).join(delimiter),
    );
  });
  return Buffer.from(`${[header, ...rows].join("\r\n")}\r\n`, "utf8");
}
