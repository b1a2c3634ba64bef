/**
 * Extraction benchmark: exact-match rate per format and per field on the invoice corpus with ground truth
 * (@docex/testkit/invoice-corpus), documents per second per core, and latency of one-page PDFs.
 *
 *   npm run build && node bench/dist/extraction.js
 *
 * The engine runs in this process on one thread (the service runs the same code in a worker pool), so the
 * throughput is per core. Scans are made and read only where pdftoppm and tesseract are installed.
 * Sizes: EXTRACTION_BENCH_EINVOICES (per format, 10), EXTRACTION_BENCH_PDFS (36), EXTRACTION_BENCH_SCANS (9).
 */
import { extractInvoice, INVOICE_FIELD_KEYS, ocrAvailable } from "@docex/extraction/engine";
import { buildInvoiceCorpus, type CorpusDocument, type CorpusFormat } from "@docex/testkit/invoice-corpus";

const EINVOICES = Number(process.env.EXTRACTION_BENCH_EINVOICES ?? 10);
const PDFS = Number(process.env.EXTRACTION_BENCH_PDFS ?? 36);
const SCANS = Number(process.env.EXTRACTION_BENCH_SCANS ?? 9);
const HEADLINE_FIELDS = ["invoice_id", "total_due", "due_date", "iban", "supplier_tax_id"];
const FIELDS = [...INVOICE_FIELD_KEYS, "line_items"];

interface Outcome {
  document: CorpusDocument;
  ms: number;
  exact: Map<string, boolean>;
}

const ocr = await ocrAvailable();
const corpus = await buildInvoiceCorpus({ einvoices: EINVOICES, textPdfs: PDFS, scans: ocr ? SCANS : 0, offset: 10_000 });
// One warm-up read of each kind (pdf.js and the XML parser load lazily), not counted.
for (const format of new Set(corpus.map((document) => document.format))) {
  const first = corpus.find((document) => document.format === format) as CorpusDocument;
  await extractInvoice({ bytes: first.bytes });
}

const outcomes: Outcome[] = [];
for (const document of corpus) {
  const started = performance.now();
  const result = await extractInvoice({ bytes: document.bytes });
  const ms = performance.now() - started;
  const exact = new Map<string, boolean>();
  for (const [key, value] of Object.entries(document.expected.fields)) {
    exact.set(key, result.fields[key as keyof typeof result.fields]?.value === value);
  }
  exact.set("line_items", JSON.stringify(result.lineItems?.rows ?? []) === JSON.stringify(document.expected.rows));
  outcomes.push({ document, ms, exact });
}

const percent = (hits: number, total: number) => (total === 0 ? "–" : `${((100 * hits) / total).toFixed(hits === total ? 0 : 1)} %`);
function rate(of: Outcome[], fields: string[]): { hits: number; total: number } {
  let hits = 0;
  let total = 0;
  for (const outcome of of) {
    for (const field of fields) {
      const value = outcome.exact.get(field);
      if (value === undefined) continue;
      total += 1;
      if (value) hits += 1;
    }
  }
  return { hits, total };
}
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

const formats = [...new Set(corpus.map((document) => document.format))] as CorpusFormat[];
const short = (field: string) => field.replace("supplier_", "s_").replace("register_id", "reg").replace("variable_symbol", "vs");
const lines = [
  "## extraction",
  "",
  `The built-in engine on the corpus of @docex/testkit/invoice-corpus (generated e-invoices, PDFs in 3 layouts × cs/en/de,`,
  `${ocr ? "scans rasterized at 200 dpi and read by tesseract ces+eng" : "no scans: tesseract or pdftoppm is not installed"}), one thread. A field counts when its`,
  "normalized value equals the ground truth exactly; line_items when every row and cell does.",
  "",
  `| format | docs | ${FIELDS.map(short).join(" | ")} | docs/s per core | p50 ms | p95 ms |`,
  `|---|---:|${FIELDS.map(() => "---:").join("|")}|---:|---:|---:|`,
];
for (const format of formats) {
  const of = outcomes.filter((outcome) => outcome.document.format === format);
  const times = of.map((outcome) => outcome.ms);
  const perSecond = (1000 * of.length) / times.reduce((sum, ms) => sum + ms, 0);
  const cells = FIELDS.map((field) => {
    const { hits, total } = rate(of, [field]);
    return percent(hits, total);
  });
  lines.push(
    `| ${format} | ${of.length} | ${cells.join(" | ")} | ${perSecond.toFixed(1)} | ${quantile(times, 0.5).toFixed(1)} | ${quantile(times, 0.95).toFixed(1)} |`,
  );
}
const einvoices = outcomes.filter((outcome) => !["pdf_text", "scan_pdf", "scan_png"].includes(outcome.document.format));
const textPdfs = outcomes.filter((outcome) => outcome.document.format === "pdf_text");
const scans = outcomes.filter((outcome) => outcome.document.format.startsWith("scan_"));
const all = rate(einvoices, FIELDS);
const text = rate(textPdfs, HEADLINE_FIELDS);
const scan = rate(scans, HEADLINE_FIELDS);
lines.push(
  "",
  `- e-invoices exact on every mapped field, line items included: **${percent(all.hits, all.total)}** (aim 100 %)`,
  `- text-layer PDFs exact on invoice_id, total_due, due_date, iban, supplier_tax_id: **${percent(text.hits, text.total)}** (aim ≥ 95 %); p95 of a one-page PDF **${quantile(
    textPdfs.map((outcome) => outcome.ms),
    0.95,
  ).toFixed(0)} ms** (aim ≤ 300 ms)`,
  scans.length
    ? `- scans (OCR) exact on the same fields: **${percent(scan.hits, scan.total)}** (aim ≥ 85 %); p95 of a one-page scan **${(
        quantile(
          scans.map((outcome) => outcome.ms),
          0.95,
        ) / 1000
      ).toFixed(2)} s** (aim ≤ 3 s)`
    : "- scans: not measured (tesseract or pdftoppm is not installed)",
);
process.stdout.write(`${lines.join("\n")}\n`);
