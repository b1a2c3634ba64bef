/**
 * The built-in engine on real public invoices nobody here wrote (`../shared/corpus`, with ground truth computed
 * without docex): per category and field, right, wrong and missing, and documents wholly right. The engine runs in
 * this process, as bench/extraction does; `../shared/corpus/run.mjs` measures the same through a stack's API.
 *
 *   npm run build && node bench/dist/real-corpus.js [--only ubl,cii,facturx_pdf:text] [--wrong] [--missing] [--scans DPI] [--half dev] [--sweep]
 *
 * Every hybrid PDF (facturx_pdf, zugferd1_pdf) is read a second time with its embedded XML ignored
 * (`pagesOnly`), as the categories `facturx_pdf:text` and `zugferd1_pdf:text`: a labelled text PDF.
 * Text-PDF files are split into a development half and a held-out half by the SHA-256 of their name (`.noxml`
 * dropped, so a stripped copy falls in its original's half); every figure is given for both halves. `--wrong`
 * lists the development half's wrong values only: the held-out half is for measuring, not for looking at.
 *
 * A hybrid whose embedded XML describes another invoice than its page (the engine warns so) is left out of the
 * `:text` categories: its XML is no truth for its page.
 *
 * `--scans DPI` also reads every text PDF as a scan: its pages (up to the engine's OCR page limit) rasterized in
 * greyscale by pdftoppm at DPI and put back into an image-only PDF, as a scanner would deliver it, read by OCR
 * (categories `…:scan`, the same halves).
 *
 * `--sweep` also judges the text PDFs (and scans) at other thresholds below which a value is left empty (the engine's
 * `minConfidence`, a filter on what was read: every file is read once with none and filtered for each threshold), and
 * fits the threshold on the development half: the one with the least cost, a wrong value counted as three empty ones.
 *
 * Judged as run.mjs judges (formats normalized, a different value stays wrong).
 * Skipped with a message where the corpus folder is absent.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { DEFAULT_LIMITS, type ExtractionResult, extractInvoice, withholdUnsure } from "@docex/extraction/engine";
import { FIELDS, halfOf, judgeEntry, TEXT_CATEGORIES, type Term, type Truth, truths, type Verdict } from "@docex/testkit/real-corpus";
import { PDFDocument } from "pdf-lib";

const here = path.dirname(fileURLToPath(import.meta.url));
const CORPUS = path.resolve(process.env.DOCEX_CORPUS_DIR ?? path.join(here, "../../../shared/corpus/files"));
const args = process.argv.slice(2);
const only = args.includes("--only") ? new Set((args[args.indexOf("--only") + 1] ?? "").split(",")) : undefined;
const listWrong = args.includes("--wrong");
const listMissing = args.includes("--missing");
const onlyHalf = args.includes("--half") ? args[args.indexOf("--half") + 1] : undefined;
const scanDpi = args.includes("--scans") ? Number(args[args.indexOf("--scans") + 1]) : undefined;
const sweep = args.includes("--sweep");
/** Thresholds judged with `--sweep`; the engine's own is judged always. */
const THRESHOLDS = [0, 30, 40, 50, 55, 60, 65, 70, 75, 80, 85, 90];
/** With `--sweep`, what a wrong value costs, in empty ones. */
const WRONG_COST = 3;
/** Every file is read with nothing withheld; each threshold is a filter on that reading. */
const UNFILTERED = { ...DEFAULT_LIMITS, minConfidence: 0 };
if (scanDpi !== undefined && !(scanDpi >= 50 && scanDpi <= 600)) throw new Error("--scans takes a resolution in dpi (50–600)");
/** Text PDFs, each document once (the stripped copies are the same pages as their facturx_pdf originals). */
const DISTINCT = ["facturx_pdf:text", "zugferd1_pdf:text", "pdf_text_real"];
const run = promisify(execFile);

/** The PDF's pages (at most 10, the engine's default OCR page limit) as a scanner delivers them: an image-only PDF. */
async function asScan(file: string, dpi: number): Promise<Uint8Array> {
  const scratch = await mkdtemp(path.join(tmpdir(), "docex-scan-"));
  try {
    await run("pdftoppm", ["-r", String(dpi), "-gray", "-png", "-l", "10", file, path.join(scratch, "page")], { timeout: 120_000 });
    const pdf = await PDFDocument.create();
    for (const name of (await readdir(scratch)).sort()) {
      const image = await pdf.embedPng(await readFile(path.join(scratch, name)));
      const [width, height] = [(image.width * 72) / dpi, (image.height * 72) / dpi];
      pdf.addPage([width, height]).drawImage(image, { x: 0, y: 0, width, height });
    }
    return await pdf.save();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
type Counts = Record<Verdict, number>;
const zero = (): Counts => ({ right: 0, wrong: 0, missing: 0, extra: 0, none: 0 });
interface Tally {
  byTerm: Map<Term, Counts>;
  total: number;
  whole: number;
  ms: number[];
  /** Values given with confidence ≥ 90, and how many of them were wrong. */
  sure: number;
  sureWrong: number;
}
const tally = (): Tally => ({ byTerm: new Map(), total: 0, whole: 0, ms: [], sure: 0, sureWrong: 0 });

if (!existsSync(CORPUS)) {
  console.log(`real-corpus: skipped, no corpus at ${CORPUS} (set DOCEX_CORPUS_DIR)`);
} else {
  /** category → half ("all" for e-invoices) → tally. */
  const table = new Map<string, Map<string, Tally>>();
  /** With `--sweep`: threshold → the text PDFs' and scans' tallies, as `table`. */
  const swept = new Map(THRESHOLDS.map((threshold) => [threshold, new Map<string, Map<string, Tally>>()]));
  const wrong: string[] = [];
  let heldOutWrong = 0;
  const excluded: string[] = [];
  for (const entry of await truths(CORPUS, only)) {
    if (onlyHalf && TEXT_CATEGORIES.has(entry.category) && halfOf(entry.file) !== onlyHalf) continue;
    const bytes = new Uint8Array(await readFile(path.join(CORPUS, entry.file)));
    // A hybrid whose XML is another invoice than its page (the engine says so) has no truth for its page: left out.
    if (entry.category.endsWith(":text")) {
      const whole = await extractInvoice({ bytes, fileName: path.basename(entry.file) }, UNFILTERED);
      if (whole.messages.some((message) => /describes another invoice/.test(message.message))) {
        excluded.push(`${entry.category} ${path.basename(entry.file)}`);
        continue;
      }
    }
    const started = performance.now();
    const result = await extractInvoice(
      { bytes, fileName: path.basename(entry.file), ...(entry.category.endsWith(":text") ? { pagesOnly: true } : {}) },
      UNFILTERED,
    );
    recordFiltered(entry, entry.category, result, performance.now() - started);
    if (scanDpi !== undefined && DISTINCT.includes(entry.category)) {
      const scan = await asScan(path.join(CORPUS, entry.file), scanDpi);
      const scanStarted = performance.now();
      const scanned = await extractInvoice({ bytes: scan, fileName: `${path.basename(entry.file)}.scan.pdf` }, UNFILTERED);
      recordFiltered(entry, `${entry.category}:scan`, scanned, performance.now() - scanStarted);
    }
  }

  /** One reading judged as the engine gives it (its own threshold), and with `--sweep` at every threshold. */
  function recordFiltered(entry: Truth, category: string, result: ExtractionResult, ms: number) {
    record(table, entry, category, withholdUnsure(result, DEFAULT_LIMITS.minConfidence), ms);
    if (sweep && (DISTINCT.includes(entry.category) || category.endsWith(":scan")))
      for (const [threshold, into] of swept) record(into, entry, category, withholdUnsure(result, threshold), ms);
  }

  function record(into: Map<string, Map<string, Tally>>, entry: Truth, category: string, result: ExtractionResult, ms: number) {
    const listed = into === table;
    const half = TEXT_CATEGORIES.has(entry.category) ? halfOf(entry.file) : "all";
    const byHalf = into.get(category) ?? new Map<string, Tally>();
    into.set(category, byHalf);
    const current = byHalf.get(half) ?? tally();
    byHalf.set(half, current);
    let whole = true;
    for (const { term, got, verdict, confidence } of judgeEntry(entry, result)) {
      if (verdict === "wrong" || verdict === "missing" || verdict === "extra") whole = false;
      const counts = current.byTerm.get(term) ?? zero();
      counts[verdict] += 1;
      current.byTerm.set(term, counts);
      if (confidence !== undefined && confidence >= 90 && (verdict === "right" || verdict === "wrong" || verdict === "extra")) {
        current.sure += 1;
        if (verdict !== "right") current.sureWrong += 1;
      }
      if (!listed) continue;
      if (verdict === "missing" && listMissing && half !== "held-out")
        wrong.push(`${category} ${path.basename(entry.file)} ${term}: expected ${String(entry.truth[term])}, none read`);
      if (verdict === "wrong" || verdict === "extra") {
        if (half === "held-out") heldOutWrong += 1;
        else if (listWrong)
          wrong.push(
            `${category} ${path.basename(entry.file)} ${term}: expected ${String(entry.truth[term])}, read ${got} (${confidence})`,
          );
      }
    }
    current.total += 1;
    if (whole) current.whole += 1;
    current.ms.push(ms);
  }
  const percent = (part: number, whole: number) => (whole ? `${((100 * part) / whole).toFixed(1)} %` : "–");
  const sumOf = (tallies: Tally[], term?: Term) => {
    const sum = zero();
    for (const entry of tallies)
      for (const [key, counts] of entry.byTerm)
        if (!term || key === term) for (const verdict of Object.keys(sum) as Verdict[]) sum[verdict] += counts[verdict];
    return sum;
  };
  const row = (label: string, half: string, tallies: Tally[]) => {
    const sum = sumOf(tallies);
    const judged = sum.right + sum.wrong + sum.missing;
    const total = tallies.reduce((count, entry) => count + entry.total, 0);
    const whole = tallies.reduce((count, entry) => count + entry.whole, 0);
    const sure = tallies.reduce((count, entry) => count + entry.sure, 0);
    const sureWrong = tallies.reduce((count, entry) => count + entry.sureWrong, 0);
    const ms = tallies.flatMap((entry) => entry.ms).sort((a, b) => a - b);
    const median = ms[Math.floor(ms.length / 2)] ?? 0;
    console.log(
      `| ${label} | ${half} | ${total} | ${percent(sum.right, judged)} | ${percent(sum.wrong, judged)} | ${percent(sum.missing, judged)} | ${sum.extra} | ${whole} | ${sureWrong} of ${sure} | ${median.toFixed(0)} |`,
    );
  };
  console.log(`real corpus: ${CORPUS}`);
  if (excluded.length) console.log(`left out of the text categories (the XML is another invoice than the page): ${excluded.join(", ")}`);
  console.log(
    "| category | half | files | fields right | fields wrong | fields missing | wrong where none is printed | wholly right | wrong among confidence ≥ 90 | median ms |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  const halves = ["all", "dev", "held-out"];
  for (const [category, byHalf] of table)
    for (const half of halves) {
      const entry = byHalf.get(half);
      if (entry) row(category, half, [entry]);
    }
  // Text PDFs, each document once: the stripped copies are the same pages as their facturx_pdf originals.
  const distinctOf = (half: string, suffix = "") =>
    DISTINCT.flatMap((category) => {
      const entry = table.get(`${category}${suffix}`)?.get(half);
      return entry ? [entry] : [];
    });
  if (DISTINCT.some((category) => table.has(category)))
    for (const half of ["dev", "held-out"]) row("text PDFs (facturx_pdf:text + zugferd1_pdf:text + pdf_text_real)", half, distinctOf(half));
  if (scanDpi !== undefined)
    for (const half of ["dev", "held-out"]) row(`the same text PDFs as scans (${scanDpi} dpi, OCR)`, half, distinctOf(half, ":scan"));
  console.log("\nper field, right / wrong / missing (+ wrong where none is printed):");
  const scanColumns = scanDpi !== undefined ? " scans, dev | scans, held-out |" : "";
  console.log(`| field | e-invoices | text PDFs, dev | text PDFs, held-out |${scanColumns}`);
  console.log(`|---|---|---|---|${scanDpi !== undefined ? "---|---|" : ""}`);
  const group = (pick: (category: string, half: string) => boolean) =>
    [...table].flatMap(([category, byHalf]) => [...byHalf].filter(([half]) => pick(category, half)).map(([, entry]) => entry));
  const einvoices = group((category) => !TEXT_CATEGORIES.has(category) && !category.endsWith(":scan"));
  const dev = group((category, half) => DISTINCT.includes(category) && half === "dev");
  const held = group((category, half) => DISTINCT.includes(category) && half === "held-out");
  const scanDev = group((category, half) => DISTINCT.some((text) => category === `${text}:scan`) && half === "dev");
  const scanHeld = group((category, half) => DISTINCT.some((text) => category === `${text}:scan`) && half === "held-out");
  const cell = (tallies: Tally[], term: Term) => {
    const sum = sumOf(tallies, term);
    return `${sum.right} / ${sum.wrong} / ${sum.missing}${sum.extra ? ` (+${sum.extra})` : ""}`;
  };
  for (const term of Object.keys(FIELDS) as Term[])
    console.log(
      `| ${term} | ${cell(einvoices, term)} | ${cell(dev, term)} | ${cell(held, term)} |${scanDpi !== undefined ? ` ${cell(scanDev, term)} | ${cell(scanHeld, term)} |` : ""}`,
    );
  if (sweep) printSweep();
  if (listWrong || listMissing)
    console.log(`\nwrong values, development half and e-invoices (held-out: ${heldOutWrong}, not listed):\n${wrong.join("\n")}`);

  /** Per threshold and half: right, wrong, missing (extra counted as wrong), wholly right, and the cost. */
  function printSweep() {
    const readings = [["text PDFs", ""], ...(scanDpi !== undefined ? [[`scans (${scanDpi} dpi)`, ":scan"]] : [])] as const;
    console.log(
      `\nvalues left empty below a threshold (text PDFs${scanDpi !== undefined ? " and scans" : ""}); cost = ${WRONG_COST} × wrong + missing, per judged field:`,
    );
    console.log("| threshold | reading | half | right | wrong (+ where none is printed) | missing | wholly right | cost |");
    console.log("|---:|---|---|---:|---:|---:|---:|---:|");
    const costs = new Map<number, number>();
    for (const [threshold, tables] of swept)
      for (const [label, suffix] of readings)
        for (const half of ["dev", "held-out"]) {
          const tallies = DISTINCT.flatMap((category) => tables.get(`${category}${suffix}`)?.get(half) ?? []);
          const sum = zero();
          for (const entry of tallies)
            for (const counts of entry.byTerm.values())
              for (const verdict of Object.keys(sum) as Verdict[]) sum[verdict] += counts[verdict];
          const judged = sum.right + sum.wrong + sum.missing;
          const cost = (WRONG_COST * (sum.wrong + sum.extra) + sum.missing) / (judged || 1);
          if (half === "dev") costs.set(threshold, (costs.get(threshold) ?? 0) + cost);
          const files = tallies.reduce((count, entry) => count + entry.total, 0);
          const whole = tallies.reduce((count, entry) => count + entry.whole, 0);
          console.log(
            `| ${threshold} | ${label} | ${half} | ${percent(sum.right, judged)} | ${percent(sum.wrong, judged)} (+${sum.extra}) | ${percent(sum.missing, judged)} | ${whole} of ${files} | ${cost.toFixed(3)} |`,
          );
        }
    const fitted = [...costs].sort((a, b) => a[1] - b[1] || a[0] - b[0])[0];
    if (fitted) console.log(`\nleast cost on the development half: threshold ${fitted[0]} (the engine's: ${DEFAULT_LIMITS.minConfidence})`);
  }
}
