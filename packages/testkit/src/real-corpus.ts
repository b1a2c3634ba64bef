import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

/**
 * The real-world corpus (`../shared/corpus`: public invoices nobody here wrote, with ground truth computed without
 * docex): its truth files, the development / held-out split of its text PDFs, and how a read value is judged — shared
 * by bench/real-corpus, the confidence model's training (bench/calibrate) and the extraction service's calibration test.
 */

/** What the engine gives back, as far as judging needs it (structural: testkit does not depend on the engine). */
export interface ReadResult {
  fields: Partial<Record<string, { value: string; confidence: number } | undefined>>;
  lineItems?: { rows: unknown[]; confidence: number } | undefined;
}

/** Categories read as text PDFs: their figures are split into halves. */
export const TEXT_CATEGORIES = new Set(["pdf_text_stripped", "pdf_text_real", "facturx_pdf:text", "zugferd1_pdf:text"]);
export type Half = "dev" | "held-out";
/** The half of a file: the parity of the first byte of the SHA-256 of its name, `.noxml` dropped. */
export function halfOf(file: string): Half {
  const name = path.basename(file).replace(/\.noxml\.pdf$/i, ".pdf");
  return (createHash("sha256").update(name).digest()[0] as number) % 2 === 0 ? "dev" : "held-out";
}

/** Ground-truth term → the engine's field (line_count → the line-item rows). */
export const FIELDS = {
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
export type Term = keyof typeof FIELDS;
export type Kind = "id" | "date" | "code" | "name" | "id_compact" | "amount" | "count";
export const KIND: Record<Term, Kind> = {
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
export type Verdict = "right" | "wrong" | "missing" | "extra" | "none";

export interface Truth {
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

export function judge(term: Term, expected: unknown, alternatives: unknown[], got: string | undefined): Verdict {
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

export function termValue(result: ReadResult, term: Term): string | undefined {
  if (term === "line_count") return String(result.lineItems?.rows.length ?? 0);
  return (result.fields as Record<string, { value: string } | undefined>)[FIELDS[term]]?.value;
}

export async function truths(corpus: string, only?: ReadonlySet<string>): Promise<Truth[]> {
  const found: Truth[] = [];
  for (const folder of (await readdir(corpus)).sort()) {
    const categories = [folder, ...(folder === "facturx_pdf" || folder === "zugferd1_pdf" ? [`${folder}:text`] : [])];
    for (const category of categories) {
      if (only && !only.has(category)) continue;
      for (const name of (await readdir(path.join(corpus, folder))).sort()) {
        if (!name.endsWith(".truth.json")) continue;
        const truth = JSON.parse(await readFile(path.join(corpus, folder, name), "utf8")) as Truth;
        found.push({ ...truth, category });
      }
    }
  }
  return found;
}

export function termConfidence(result: ReadResult, term: Term): number | undefined {
  if (term === "line_count") return result.lineItems?.confidence;
  return (result.fields as Record<string, { confidence: number } | undefined>)[FIELDS[term]]?.confidence;
}

/** One judged value of an entry: what the truth says, what was read, how it is judged and with which confidence. */
export interface JudgedTerm {
  term: Term;
  field: string;
  expected: unknown;
  got: string | undefined;
  verdict: Verdict;
  confidence: number | undefined;
}

/**
 * Every term of `entry` judged on `result`: a credit note's amounts may be printed negative on its page, and the
 * MINIMUM and BASIC WL profiles carry no line items (their XML's count of 0 is no truth for the page's table).
 */
export function judgeEntry(entry: Truth, result: ReadResult): JudgedTerm[] {
  return (Object.keys(FIELDS) as Term[]).map((term) => {
    const alternatives = [...((entry.truth[`${term}_alternatives`] as unknown[] | undefined) ?? [])];
    if (entry.category.endsWith(":text") && KIND[term] === "amount" && / 381$/.test(String(entry.truth.document_kind ?? "")))
      alternatives.push(`-${String(entry.truth[term])}`);
    const got = termValue(result, term);
    const noLines =
      TEXT_CATEGORIES.has(entry.category) && term === "line_count" && /minimum|basicwl/i.test(String(entry.truth.profile ?? ""));
    const verdict = noLines ? "none" : judge(term, entry.truth[term], alternatives, got);
    return { term, field: FIELDS[term], expected: entry.truth[term], got, verdict, confidence: termConfidence(result, term) };
  });
}
