/**
 * The built-in engine on real public invoices nobody here wrote (`../shared/corpus`, with ground truth computed
 * without docex): per category and field, right, wrong and missing, and documents wholly right. The engine runs in
 * this process, as bench/extraction does; `../shared/corpus/run.mjs` measures the same through a stack's API.
 *
 *   npm run build && node bench/dist/real-corpus.js [--only ubl,cii] [--wrong]
 *
 * Judged as run.mjs judges (formats normalized, a different value stays wrong); `--wrong` lists every wrong value.
 * Skipped with a message where the corpus folder is absent.
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type ExtractionResult, extractInvoice } from "@docex/extraction/engine";

const here = path.dirname(fileURLToPath(import.meta.url));
const CORPUS = path.resolve(process.env.DOCEX_CORPUS_DIR ?? path.join(here, "../../../shared/corpus/files"));
const args = process.argv.slice(2);
const only = args.includes("--only") ? new Set((args[args.indexOf("--only") + 1] ?? "").split(",")) : undefined;
const listWrong = args.includes("--wrong");

/** Ground-truth term → the engine's field (line_count → the line-item rows). */
const FIELDS = {
  invoice_id: "invoice_id",
  issue_date: "issue_date",
  due_date: "due_date",
  currency: "currency",
  seller_name: "supplier_name",
  seller_vat: "supplier_tax_id",
  seller_legal_id: "supplier_register_id",
  buyer_name: "buyer_name",
  total_payable: "total_due",
  tax_exclusive: "total_without_tax",
  tax_amount: "total_tax",
  iban: "iban",
  payment_reference: "variable_symbol",
  line_count: "line_items",
} as const;
type Term = keyof typeof FIELDS;
type Kind = "id" | "date" | "code" | "name" | "id_compact" | "amount" | "count";
const KIND: Record<Term, Kind> = {
  invoice_id: "id",
  issue_date: "date",
  due_date: "date",
  currency: "code",
  seller_name: "name",
  seller_vat: "id_compact",
  seller_legal_id: "id_compact",
  buyer_name: "name",
  total_payable: "amount",
  tax_exclusive: "amount",
  tax_amount: "amount",
  iban: "id_compact",
  payment_reference: "id",
  line_count: "count",
};
type Verdict = "right" | "wrong" | "missing" | "extra" | "none";

interface Truth {
  file: string;
  category: string;
  truth: Record<string, unknown> & { seller_trading_name?: string | null };
}

function normDate(value: unknown): string {
  const text = String(value).trim();
  const iso = /^(\d{4})-(\d{2})-(\d{2})/.exec(text) ?? /^(\d{4})(\d{2})(\d{2})$/.exec(text);
  return iso ? `${iso[1]}-${iso[2]}-${iso[3]}` : text;
}
function normAmount(value: unknown): number | undefined {
  let text = String(value).replace(/\s|\u00a0/g, "");
  if (/^-?\d{1,3}(,\d{3})+(\.\d+)?$/.test(text)) text = text.replace(/,/g, "");
  else if (/^-?\d+,\d+$/.test(text)) text = text.replace(",", ".");
  const number = Number(text);
  return text !== "" && Number.isFinite(number) ? number : undefined;
}
const normName = (value: unknown) =>
  String(value)
    .normalize("NFC")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/[ .,;]+$/, "")
    .trim();
const compact = (value: unknown) => String(value).replace(/\s/g, "").toUpperCase();
const present = (value: unknown) => value !== undefined && value !== null && value !== "";

function judge(term: Term, expected: unknown, alternatives: unknown[], got: string | undefined): Verdict {
  const kind = KIND[term];
  if (!present(expected)) return kind !== "count" && present(got) ? "extra" : "none";
  if (!present(got)) return "missing";
  const equal = (candidate: unknown) => {
    switch (kind) {
      case "date":
        return normDate(candidate) === normDate(got);
      case "amount": {
        const a = normAmount(candidate);
        const b = normAmount(got);
        return a !== undefined && b !== undefined && Math.abs(a - b) < 0.005;
      }
      case "code":
        return String(candidate).trim().toUpperCase() === String(got).trim().toUpperCase();
      case "name":
        return normName(candidate) === normName(got);
      case "id_compact":
        return compact(candidate) === compact(got);
      case "count":
        return Number(candidate) === Number(got);
      default:
        return String(candidate).trim() === String(got).trim();
    }
  };
  if ([expected, ...alternatives].some(equal)) return "right";
  if (kind === "count" && Number(got) === 0) return "missing";
  return "wrong";
}

function termValue(result: ExtractionResult, term: Term): string | undefined {
  if (term === "line_count") return String(result.lineItems?.rows.length ?? 0);
  return (result.fields as Record<string, { value: string } | undefined>)[FIELDS[term]]?.value;
}

async function truths(): Promise<Truth[]> {
  const found: Truth[] = [];
  for (const category of (await readdir(CORPUS)).sort()) {
    if (only && !only.has(category)) continue;
    for (const name of (await readdir(path.join(CORPUS, category))).sort()) {
      if (!name.endsWith(".truth.json")) continue;
      found.push(JSON.parse(await readFile(path.join(CORPUS, category, name), "utf8")) as Truth);
    }
  }
  return found;
}

if (!existsSync(CORPUS)) {
  console.log(`real-corpus: skipped, no corpus at ${CORPUS} (set DOCEX_CORPUS_DIR)`);
} else {
  const table = new Map<string, Map<Term, Record<Verdict, number>>>();
  const documents = new Map<string, { total: number; whole: number; ms: number[] }>();
  const wrong: string[] = [];
  for (const entry of await truths()) {
    const bytes = new Uint8Array(await readFile(path.join(CORPUS, entry.file)));
    const started = performance.now();
    const result = await extractInvoice({ bytes, fileName: path.basename(entry.file) });
    const ms = performance.now() - started;
    const byTerm = table.get(entry.category) ?? new Map<Term, Record<Verdict, number>>();
    table.set(entry.category, byTerm);
    let whole = true;
    for (const term of Object.keys(FIELDS) as Term[]) {
      const alternatives = (entry.truth[`${term}_alternatives`] as unknown[] | undefined) ?? [];
      const got = termValue(result, term);
      const verdict = judge(term, entry.truth[term], alternatives, got);
      if (verdict === "wrong" || verdict === "missing" || verdict === "extra") whole = false;
      const counts = byTerm.get(term) ?? { right: 0, wrong: 0, missing: 0, extra: 0, none: 0 };
      counts[verdict] += 1;
      byTerm.set(term, counts);
      if (verdict === "wrong" && listWrong) wrong.push(`${entry.file} ${term}: expected ${String(entry.truth[term])}, read ${got}`);
    }
    const summary = documents.get(entry.category) ?? { total: 0, whole: 0, ms: [] };
    summary.total += 1;
    if (whole) summary.whole += 1;
    summary.ms.push(ms);
    documents.set(entry.category, summary);
  }
  const percent = (part: number, whole: number) => (whole ? `${((100 * part) / whole).toFixed(1)} %` : "–");
  console.log(`real corpus: ${CORPUS}`);
  console.log(
    "| category | files | fields right | fields wrong | fields missing | wrong where none is printed | wholly right | median ms |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const [category, byTerm] of table) {
    const sum = { right: 0, wrong: 0, missing: 0, extra: 0, none: 0 };
    for (const counts of byTerm.values()) for (const verdict of Object.keys(sum) as Verdict[]) sum[verdict] += counts[verdict];
    const judged = sum.right + sum.wrong + sum.missing;
    const summary = documents.get(category) as { total: number; whole: number; ms: number[] };
    const median = [...summary.ms].sort((a, b) => a - b)[Math.floor(summary.ms.length / 2)] ?? 0;
    console.log(
      `| ${category} | ${summary.total} | ${percent(sum.right, judged)} | ${percent(sum.wrong, judged)} | ${percent(sum.missing, judged)} | ${sum.extra} | ${summary.whole} | ${median.toFixed(0)} |`,
    );
  }
  console.log("\nper field (right / wrong / missing), all categories:");
  for (const term of Object.keys(FIELDS) as Term[]) {
    const sum = { right: 0, wrong: 0, missing: 0, extra: 0, none: 0 };
    for (const byTerm of table.values()) {
      const counts = byTerm.get(term);
      if (counts) for (const verdict of Object.keys(sum) as Verdict[]) sum[verdict] += counts[verdict];
    }
    console.log(
      `  ${term.padEnd(18)} ${sum.right} / ${sum.wrong} / ${sum.missing}${sum.extra ? ` (+${sum.extra} where none is printed)` : ""}`,
    );
  }
  if (listWrong) console.log(`\nwrong values:\n${wrong.join("\n")}`);
}
