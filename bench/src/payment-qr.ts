/**
 * Payment QR codes (issue 36, item 4): what looking for them costs a text PDF, and how often a code that is read is
 * read wrong.
 *
 *   npm run build && node bench/dist/payment-qr.js
 *
 * Cost: each text PDF of the generated corpus read with and without the QR lookup (the engine in this process, one
 * thread), and the Czech ones again with a QR Platba printed on them. Correctness: SPAYD codes with random amounts,
 * variable symbols and due dates, drawn at three sizes on a page, read from the page rendered as the engine renders a
 * text PDF (150 dpi) and from scans rasterized at 200 and 100 dpi. Size: PAYMENT_QR_BENCH_CODES (40).
 */
import { crc32 } from "node:zlib";
import { DEFAULT_LIMITS, extractInvoice, paymentQrInImage } from "@docex/extraction/engine";
import { buildInvoiceCorpus, canRasterize, rasterize, seededRandom } from "@docex/testkit/invoice-corpus";
import { PDFDocument, StandardFonts } from "pdf-lib";
import QRCode from "qrcode";

const CODES = Number(process.env.PAYMENT_QR_BENCH_CODES ?? 40);

if (!(await canRasterize())) {
  console.log("payment-qr bench skipped: pdftoppm is not installed");
  process.exit(0);
}

function spayd(iban: string, amount: string, symbol: string, due: string): string {
  const canonical = `SPD*1.0*ACC:${iban}*AM:${amount}*CC:CZK*DT:${due}*MSG:FAKTURA*X-VS:${symbol}`;
  return `${canonical}*CRC32:${crc32(canonical).toString(16).toUpperCase().padStart(8, "0")}`;
}

async function withCode(bytes: Uint8Array, text: string, points: number): Promise<Uint8Array> {
  const document = await PDFDocument.load(bytes);
  const page = document.getPage(0);
  page.drawText("QR Platba", { x: 50, y: 70 + points, size: 9, font: await document.embedFont(StandardFonts.Helvetica) });
  const png = await QRCode.toBuffer(text, { scale: 4, margin: 2, errorCorrectionLevel: "M" });
  page.drawImage(await document.embedPng(png), { x: 50, y: 60, width: points, height: points });
  return document.save();
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
};

async function timed(bytes: Uint8Array, paymentQr: boolean): Promise<number> {
  const started = performance.now();
  await extractInvoice({ bytes }, { ...DEFAULT_LIMITS, paymentQr });
  return performance.now() - started;
}

const corpus = (await buildInvoiceCorpus({ einvoices: 0, textPdfs: 36, scans: 0, offset: 20_000 })).filter(
  (document) => document.format === "pdf_text",
);
await timed(corpus[0]?.bytes as Uint8Array, true);
const rows: string[] = [];
let lookedForP95 = Number.NaN;
for (const [name, documents] of [
  ["Czech suppliers, cs and en (looked for: CZ IBAN, account, CZK)", corpus.filter((document) => document.truth.supplier.country === "CZ")],
  ["German suppliers (not looked for)", corpus.filter((document) => document.truth.supplier.country !== "CZ")],
] as const) {
  const without: number[] = [];
  const withLookup: number[] = [];
  for (const document of documents) {
    without.push(await timed(document.bytes, false));
    withLookup.push(await timed(document.bytes, true));
  }
  if (name.startsWith("Czech")) lookedForP95 = quantile(withLookup, 0.95);
  rows.push(
    `| ${name} | ${documents.length} | ${quantile(without, 0.5).toFixed(1)} / ${quantile(without, 0.95).toFixed(1)} | ${quantile(withLookup, 0.5).toFixed(1)} / ${quantile(withLookup, 0.95).toFixed(1)} |`,
  );
}
const printed: number[] = [];
for (const document of corpus.filter((entry) => entry.truth.supplier.country === "CZ")) {
  const truth = document.truth;
  const bytes = await withCode(
    document.bytes,
    spayd(truth.supplier.iban, document.expected.fields.total_due as string, truth.variableSymbol, truth.dueDate.replace(/-/g, "")),
    90,
  );
  printed.push(await timed(bytes, true));
}
rows.push(
  `| Czech suppliers with a QR Platba printed | ${printed.length} | – | ${quantile(printed, 0.5).toFixed(1)} / ${quantile(printed, 0.95).toFixed(1)} |`,
);

const random = seededRandom(36_004);
const outcomes = new Map<string, { right: number; wrong: number; missed: number; ms: number[] }>();
const count = (setting: string, right: boolean | undefined, ms: number) => {
  const entry = outcomes.get(setting) ?? { right: 0, wrong: 0, missed: 0, ms: [] };
  if (right === undefined) entry.missed += 1;
  else if (right) entry.right += 1;
  else entry.wrong += 1;
  entry.ms.push(ms);
  outcomes.set(setting, entry);
};
const base = await PDFDocument.create();
base
  .addPage([595, 842])
  .drawText("Faktura - danovy doklad", { x: 50, y: 780, size: 14, font: await base.embedFont(StandardFonts.Helvetica) });
const blank = await base.save();
for (let index = 0; index < CODES; index += 1) {
  const iban = corpus[index % corpus.length]?.truth.supplier.iban as string;
  if (!iban.startsWith("CZ")) continue;
  const amount = (Math.floor(random() * 10_000_000) / 100).toFixed(2);
  const symbol = String(Math.floor(random() * 9_999_999_999) + 1);
  const due = `2025${String(1 + Math.floor(random() * 12)).padStart(2, "0")}${String(1 + Math.floor(random() * 28)).padStart(2, "0")}`;
  const expected = [iban, amount, symbol, `${due.slice(0, 4)}-${due.slice(4, 6)}-${due.slice(6)}`].join(" ");
  for (const points of [60, 80, 105]) {
    const pdf = await withCode(blank, spayd(iban, amount, symbol, due), points);
    const started = performance.now();
    const read = await extractInvoice({ bytes: pdf });
    const got =
      read.fields.iban?.source === "builtin:qr"
        ? [read.fields.iban, read.fields.total_due, read.fields.variable_symbol, read.fields.due_date]
            .map((field) => field?.value)
            .join(" ")
        : undefined;
    count(
      `text PDF, code ${points} pt (${((points / 72) * 25.4).toFixed(0)} mm), rendered at 150 dpi`,
      got === undefined ? undefined : got === expected,
      performance.now() - started,
    );
    for (const dpi of [200, 100]) {
      const { png } = await rasterize(pdf, dpi);
      const scanStarted = performance.now();
      const found = await paymentQrInImage(png, 1);
      const scanGot = found ? [found.qr.ibans[0], found.qr.amount, found.qr.variableSymbol, found.qr.dueDate].join(" ") : undefined;
      count(
        `scan at ${dpi} dpi, code ${points} pt`,
        scanGot === undefined ? undefined : scanGot === expected,
        performance.now() - scanStarted,
      );
    }
  }
}

const totals = [...outcomes.values()].reduce(
  (sum, entry) => ({ right: sum.right + entry.right, wrong: sum.wrong + entry.wrong, missed: sum.missed + entry.missed }),
  { right: 0, wrong: 0, missed: 0 },
);
const reads = totals.right + totals.wrong + totals.missed;
console.log(
  [
    "## payment QR codes",
    "",
    `- payment QR codes read wrong: **${totals.wrong} of ${reads}** (${totals.missed} not found); with none wrong, the 95 % bound on the rate is ${((100 * 3) / reads).toFixed(1)} % (rule of three)`,
    `- p95 of a one-page Czech text PDF with the QR lookup: **${lookedForP95.toFixed(0)} ms** (aim of upload to to_validate ≤ 300 ms)`,
    "",
    "What looking for a payment QR code costs a one-page text PDF (the engine in one process, ms, p50 / p95):",
    "",
    "| text PDFs | docs | without the lookup | with it |",
    "|---|---:|---:|---:|",
    ...rows,
    "",
    "Codes read (SPAYD with CRC32: IBAN, amount, variable symbol and due date compared):",
    "",
    "| setting | codes | read right | read wrong | not found | p50 ms to find |",
    "|---|---:|---:|---:|---:|---:|",
    ...[...outcomes].map(
      ([setting, entry]) =>
        `| ${setting} | ${entry.right + entry.wrong + entry.missed} | ${entry.right} | ${entry.wrong} | ${entry.missed} | ${quantile(entry.ms, 0.5).toFixed(1)} |`,
    ),
  ].join("\n"),
);
