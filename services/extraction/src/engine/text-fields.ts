import { confidenceOf, type Evidence } from "./confidence.js";
import { LABELS, type LabelledKey, labelPattern, PARTY_HEADINGS } from "./labels.js";
import type { Line, Segment } from "./page-text.js";
import type {
  ExtractedField,
  ExtractionMessage,
  ExtractionResult,
  FieldPosition,
  InvoiceFieldKey,
  LineItemColumn,
  LineItemRow,
  ValueSource,
} from "./types.js";
import {
  czechAccountOfIban,
  type DateOrder,
  foldText,
  formatAmount,
  formatQuantity,
  normalizeCzechAccount,
  normalizeDate,
  normalizeGermanRegister,
  normalizeIban,
  normalizeIco,
  normalizeVatId,
  parseAmount,
  vatChecksumHolds,
} from "./validators.js";

/**
 * The layout reader: every field's candidates from typed parsers, found after a label (in the same segment,
 * anywhere in it, to its right, or below it) or by their shape; parties from block headings; totals by
 * consistency. Each value's confidence is built from what supports it (see `Evidence`), never a constant per path.
 */

/** Page sizes in the items' units, to express positions as fractions; index = page - 1. */
export type PageSizes = { width: number; height: number }[];

/** A segment with its folded text (same length as `text`, so offsets carry over). */
interface Seg extends Segment {
  folded: string;
  line: number;
  index: number;
}

/** Lower case without diacritics, one output character per input character. */
function foldSameLength(text: string): string {
  let out = "";
  for (const char of text) {
    const folded = foldText(char);
    out += folded.length === char.length ? folded : char.toLowerCase().length === char.length ? char.toLowerCase() : char;
  }
  return out;
}

/**
 * Which of a field's candidates wins: a score from evidence, weights chosen by hand and checked on the development half
 * of the real corpus. The value's confidence is not this score but the trained model's probability (confidence.ts).
 */
function rankOf(evidence: Evidence): number {
  let score = { strong: 80, weak: 66, heading: 76, none: 50 }[evidence.label];
  if (evidence.place === "below") score -= 4;
  if (evidence.place === "shape") score -= 6;
  if (evidence.check === true) score += 10;
  if (evidence.check === false) score -= 20;
  if (evidence.consistent) score += 20;
  if (evidence.ambiguous) score -= 15;
  if (evidence.party === true) score += 4;
  if (evidence.party === false) score -= 12;
  return Math.max(5, Math.min(99, score));
}

interface Candidate {
  value: string;
  evidence: Evidence;
  seg: Seg;
  start: number;
  end: number;
}

type Parser = (text: string) => string | undefined;

// ---------------------------------------------------------------- parsers

const invoiceNumber: Parser = (text) => {
  const token = text.trim().replace(/^[#:.\s]+/, "");
  if (!/^[A-Z0-9][A-Z0-9\-/_.]{0,30}$/i.test(token) || !/\d/.test(token)) return undefined;
  if (normalizeDate(token) || /^\d{1,3}([.,]\d{3})*[.,]\d{2}$/.test(token)) return undefined;
  return token.replace(/[.,]$/, "");
};

/** An amount: with decimals, or whole next to a currency mark or ",-". Percentages are not amounts. */
const amount: Parser = (text) => {
  if (/%/.test(text)) return undefined;
  const value = parseAmount(text.replace(/^[-−–]\s*/, "-"));
  if (value === undefined) return undefined;
  const hasDecimals = /\d[.,]\d{2}(?!\d)/.test(text);
  const hasMark = /(CZK|EUR|USD|GBP|PLN|CHF|Kč|Kc|zł|€|\$|£|,-)/i.test(text);
  return hasDecimals || hasMark ? formatAmount(value) : undefined;
};

const digitsSymbol: Parser = (text) => (/^\d{1,10}$/.test(text.trim()) ? text.trim() : undefined);

function luhn(digits: string): boolean {
  let sum = 0;
  [...digits].reverse().forEach((char, index) => {
    let digit = Number(char);
    if (index % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  });
  return sum % 10 === 0;
}

/** Company register ids: IČO (check digit), HRA/HRB, SIRET/SIREN (Luhn), KvK, REGON, KRS. */
const registerId: Parser = (text) => {
  const trimmed = text.trim();
  const compact = trimmed.replace(/[\s.]/g, "");
  // SIRET (14 digits) and SIREN (9): sample numbers fail their Luhn check, so the label decides.
  if (/^\d{14}$/.test(compact) || (/^\d{9}$/.test(compact) && luhn(compact))) return compact;
  return normalizeIco(compact) ?? normalizeGermanRegister(trimmed) ?? (/^\d{8}$|^\d{10}$/.test(compact) ? compact : undefined);
};

const LEGAL_FORM =
  /\b(gmbh|ag|kg|ohg|ug|e\.?\s?k\.?|s\.?\s?r\.?\s?o\.?|a\.\s?s\.|v\.\s?o\.\s?s\.|sarl|sas|sa|eurl|sasu|ltd\.?|limited|llc|inc\.?|plc|b\.?v\.?|n\.?v\.?|sp\.\s?z\s?o\.?\s?o\.?|s\.?p\.?a\.?|s\.?r\.?l\.?|s\.?l\.?|oy|ab|as|aps)\s*$/i;

let ALL_LABELS: RegExp | undefined;
/** Whether the whole text is a label (or labels), so it can never be a value. */
function isLabelText(folded: string): boolean {
  ALL_LABELS ??= new RegExp(
    `^(?:(?:${[
      ...Object.values(LABELS).flatMap((set) => [...set.strong, ...(set.weak ?? [])]),
      ...Object.values(PARTY_HEADINGS).flat(),
      "nummer",
      "number",
      "nr",
      "no",
      "globale nummer",
      "anschrift",
      "address",
      "adresse",
      "tel",
      "telefon",
      "phone",
      "fax",
      "e-?mail",
      "web",
      "bic",
      "swift",
      "steuernummer",
      "page",
      "seite",
    ].join("|")})[\\s.:#]*)+$`,
    "u",
  );
  return ALL_LABELS.test(folded.trim());
}

/** A party's name: more letters than digits, not a label, not contact details. */
export const partyName: Parser = (text) => {
  const trimmed = text.trim().replace(/\s*[,;]$/, "");
  const letters = trimmed.match(/\p{L}/gu)?.length ?? 0;
  const digitCount = trimmed.match(/\d/g)?.length ?? 0;
  if (trimmed.length < 2 || letters < 2 || digitCount > letters / 3 || /:$/.test(trimmed)) return undefined;
  if (/@|https?:|www\.|^\+?\d|[●•]/.test(trimmed)) return undefined;
  const folded = foldText(trimmed);
  if (isLabelText(folded) || /^(herr|frau|mr\.?|mrs\.?|ms\.?|m\.|mme|attn\.?|z\. ?hd\.?)$/.test(folded)) return undefined;
  return trimmed;
};

// ---------------------------------------------------------------- the reader

let PATTERNS: { key: LabelledKey; tier: "strong" | "weak"; pattern: RegExp }[] | undefined;
function labelPatterns() {
  PATTERNS ??= (Object.entries(LABELS) as [LabelledKey, (typeof LABELS)[LabelledKey]][]).flatMap(([key, set]) =>
    (["strong", "weak"] as const).flatMap((tier) => {
      const labels = set[tier];
      return labels?.length ? [{ key, tier, pattern: labelPattern(labels) }] : [];
    }),
  );
  return PATTERNS;
}

interface Hit {
  key: LabelledKey;
  tier: "strong" | "weak";
  seg: Seg;
  start: number;
  end: number;
}

const CONNECTOR =
  /^(?:(?:nr|no|n[°º]|num)\.(?=[a-z0-9])|[\s:#.=\-–—)]+|\((?:excl|incl|inkl|zzgl|ohne|mit|bez|vc?etne|ht|ttc|hors|toutes)[^)]{0,30}\)|\(\d{1,3}\)|nr\.?|no\.?|n[°º]\.?|number|nummer|numero|num\.?|c\.|cislo|#|\d{1,2}(?:[.,]\d{1,2})? ?%|in|en|ve|w)(?=[\s:#.]|$)/;

/** A word for number opening a segment: "Nr. 471102", "No: 42", "#42". */
const NUMBER_WORD = /^(?:nr|no|n[°º]|number|nummer|numero|num|cislo|#)\.?(?=[\s:#.]|\d|$)[\s:.]*/;

/** The original text after a label, connectors ("Nr.", "#", ":", "(380)", "19 %") skipped. */
function afterLabel(seg: Seg, end: number): { text: string; start: number; numbered: boolean } {
  let position = end;
  let numbered = false;
  for (let guard = 0; guard < 6; guard += 1) {
    const rest = seg.folded.slice(position);
    const match = CONNECTOR.exec(rest) ?? /^\s+/.exec(rest);
    if (!match || match[0].length === 0) break;
    if (/^(nr|no|n[°º]|number|nummer|numero|num|c\.|cislo|#)/.test(match[0])) numbered = true;
    position += match[0].length;
  }
  return { text: seg.text.slice(position), start: position, numbered };
}

/** The longest run of leading words of `text` (at most `maxTokens`) that the parser accepts, with its length. */
function leading(text: string, parse: Parser, maxTokens: number): { value: string; length: number } | undefined {
  const tokens = [...text.matchAll(/\S+/g)];
  for (let count = Math.min(maxTokens, tokens.length); count >= 1; count -= 1) {
    const last = tokens[count - 1] as RegExpMatchArray;
    const length = (last.index as number) + last[0].length;
    const value = parse(text.slice(0, length));
    if (value !== undefined) return { value, length };
  }
  return undefined;
}

/**
 * The date printed after an invoice number ("Rechnung Nr. 42 vom 05.03.2018"), in the number's segment or the next
 * ones on its line (OCR parts the words where the gaps are wide: "Nr. 42 | vom | 05.03.2018").
 */
function dateAfterNumber(segs: Seg[][], id: Candidate, parse: Parser): Candidate | undefined {
  const row = segs[id.seg.line] ?? [];
  const pieces: { seg: Seg; from: number; at: number }[] = [];
  let text = "";
  for (const [seg, from] of [[id.seg, id.end] as const, ...row.slice(id.seg.index + 1, id.seg.index + 3).map((seg) => [seg, 0] as const)]) {
    pieces.push({ seg, from, at: text.length });
    text += `${seg.text.slice(from)} `;
  }
  const match = /^\s*[,;]?\s*(?:vom|von|du|dated|of|del|de|z dnia|ze dne|zo dna|dd\.?|van|issued at|issued on)\s+/i.exec(text);
  if (!match) return undefined;
  const piece = pieces.findLast((candidate) => candidate.at <= match[0].length) as (typeof pieces)[number];
  const start = piece.from + (match[0].length - piece.at);
  const read = leading(piece.seg.text.slice(start), parse, 4);
  return read && { value: read.value, evidence: { label: "strong", place: "inline" }, seg: piece.seg, start, end: start + read.length };
}

export function fieldsFromLines(lines: Line[], source: ValueSource, pageSizes: PageSizes = []): ExtractionResult {
  const segs: Seg[][] = lines.map((line, lineIndex) =>
    line.segments.map((segment, index) => {
      const text = segment.text.normalize("NFC");
      return { ...segment, text, folded: foldSameLength(text), line: lineIndex, index };
    }),
  );
  const all = segs.flat();

  // ---- label hits, longest first where two overlap ("Gesamtbetrag netto" over "Gesamtbetrag")
  const hits: Hit[] = [];
  const bySeg = new Map<Seg, Hit[]>();
  for (const seg of all) {
    const found: Hit[] = [];
    for (const { key, tier, pattern } of labelPatterns()) {
      for (const match of seg.folded.matchAll(pattern))
        found.push({ key, tier, seg, start: match.index as number, end: (match.index as number) + match[0].length });
    }
    found.sort((a, b) => b.end - b.start - (a.end - a.start) || (a.tier === "strong" ? -1 : 1));
    const kept: Hit[] = [];
    // Two fields may share a label's span ("TVA" names a VAT id and the tax): both are kept, the parsers decide.
    for (const hit of found)
      if (!kept.some((other) => hit.start < other.end && other.start < hit.end && !(hit.start === other.start && hit.end === other.end)))
        kept.push(hit);
    kept.sort((a, b) => a.start - b.start);
    hits.push(...kept);
    bySeg.set(seg, kept);
  }
  const hitsIn = (seg: Seg | undefined) => (seg ? (bySeg.get(seg) ?? []) : []);

  /**
   * An amount under a totals header may head a column of them: a row per VAT rate, then their sum ("Nettobetrag |
   * 321,40 | 127,59 | 448,99"). The column's amounts are read down while rows follow closely; where the last is the
   * sum of those above it, it is the total. Where several stand and none is their sum, which row the label means is a
   * guess: the first is given as ambiguous.
   */
  const totalOfColumn = (first: Candidate, firstLine: number): Candidate => {
    const column: Candidate[] = [first];
    let previous = first.seg;
    for (let lineIndex = firstLine + 1; lineIndex < Math.min(segs.length, firstLine + 12); lineIndex += 1) {
      const line = segs[lineIndex] as Seg[];
      if (line[0]?.page !== previous.page || (line[0]?.y ?? 0) - previous.y > previous.height * 2.5) break;
      const under = line.find((seg) => seg.x < first.seg.xEnd + first.seg.height && seg.xEnd > first.seg.x - first.seg.height);
      const value = under ? amount(under.text.trim()) : undefined;
      if (!under || value === undefined) break;
      column.push({ value, evidence: first.evidence, seg: under, start: 0, end: under.text.length });
      previous = under;
    }
    if (column.length === 1) return first;
    const last = column[column.length - 1] as Candidate;
    const above = column.slice(0, -1).reduce((sum, candidate) => sum + Number(candidate.value), 0);
    if (Math.abs(above - Number(last.value)) < 0.005 * column.length) return { ...last, evidence: { ...last.evidence, consistent: true } };
    return { ...first, evidence: { ...first.evidence, ambiguous: true } };
  };

  /** Values for a label hit: after it in its segment, in the next segment right, or below it. */
  const valuesOf = (hit: Hit, parse: Parser, maxTokens: number, allowBelow = hit.tier === "strong"): Candidate[] => {
    const found: Candidate[] = [];
    const after = afterLabel(hit.seg, hit.end);
    // The next label after the skipped connectors ("(excl. USt.)" holds one) bounds the value.
    const nextHit = hitsIn(hit.seg).find((other) => other.start >= after.start);
    // "Rechnung Nr. 42": a weak label made specific by the word for number after it.
    const label = after.numbered ? "strong" : hit.tier;
    const limit = nextHit ? Math.max(0, nextHit.start - after.start) : after.text.length;
    const inline = after.text.slice(0, limit);
    if (inline.trim()) {
      const read = leading(inline, parse, maxTokens);
      if (read)
        found.push({
          value: read.value,
          evidence: { label, place: "inline" },
          seg: hit.seg,
          start: after.start,
          end: after.start + read.length,
        });
      return found;
    }
    if (nextHit && nextHit.start < hit.seg.text.length) return found;
    const row = segs[hit.seg.line] as Seg[];
    // A currency code alone between the label and the value ("Steuerbetrag in | EUR | 37,62") is skipped.
    const skip = /^[A-Z]{3}$|^[€$£]$/.test(row[hit.seg.index + 1]?.text.trim() ?? "") && parse === amount ? 1 : 0;
    const right = row[hit.seg.index + 1 + skip];
    if (right) {
      // The word for number may stand apart from its label ("Handelsrechnung | Nr. 471102", OCR's wide gaps).
      const number = NUMBER_WORD.exec(right.folded);
      const text = right.text.slice(number?.[0].length ?? 0).replace(/^[:\s]+/, "");
      const offset = right.text.length - text.length;
      const read = leading(text, parse, maxTokens);
      if (read)
        found.push({
          value: read.value,
          evidence: { label: number ? "strong" : label, place: "right" },
          seg: right,
          start: offset,
          end: offset + read.length,
        });
      // A neighbour close by that is no value ends the search; one a column away (a table's next header) does not:
      // the value may stand below the label.
      if (read || (hitsIn(right).length === 0 && right.x - hit.seg.xEnd < hit.seg.height * 3)) return found;
    }
    if (!allowBelow) return found;
    for (let lineIndex = hit.seg.line + 1; lineIndex <= hit.seg.line + 2 && lineIndex < segs.length; lineIndex += 1) {
      const line = segs[lineIndex] as Seg[];
      if (line[0]?.page !== hit.seg.page) break;
      for (const under of line) {
        if (!(under.x < hit.seg.xEnd + hit.seg.height && under.xEnd > hit.seg.x - hit.seg.height)) continue;
        if (hitsIn(under).some((other) => other.start === 0)) continue;
        const read = leading(under.text, parse, maxTokens);
        if (read) {
          const first: Candidate = { value: read.value, evidence: { label, place: "below" }, seg: under, start: 0, end: read.length };
          found.push(parse === amount ? totalOfColumn(first, lineIndex) : first);
          return found;
        }
      }
    }
    return found;
  };

  const labelled = (key: LabelledKey, parse: Parser, maxTokens: number, filter: (hit: Hit) => boolean = () => true) =>
    hits.filter((hit) => hit.key === key && filter(hit)).flatMap((hit) => valuesOf(hit, parse, maxTokens));

  // ---- dates: day or month first, from the document's own dates
  const order = dateOrder(all);
  const dateParser: Parser = (text) => normalizeDate(text.replace(/[.,;)]+$/, ""), order.order);
  const dateCandidates = (key: LabelledKey, filter?: (hit: Hit) => boolean) =>
    labelled(key, dateParser, 4, filter).map((candidate) => {
      const ambiguous = !order.sure && /^\d{1,2}[/-]\d{1,2}[/-]\d{2,4}/.test(candidate.seg.text.slice(candidate.start).trim());
      return ambiguous ? { ...candidate, evidence: { ...candidate.evidence, ambiguous } } : candidate;
    });

  const fields: ExtractionResult["fields"] = {};
  const set = (key: InvoiceFieldKey, candidate: Candidate | undefined, evidence: Partial<Evidence> = {}) => {
    if (!candidate) return;
    const seen: Evidence = {
      ...candidate.evidence,
      ...evidence,
      ...(candidate.seg.wordConfidence !== undefined ? { wordConfidence: candidate.seg.wordConfidence } : {}),
    };
    const position = positionOf(candidate, pageSizes);
    fields[key] = {
      value: candidate.value,
      confidence: confidenceOf(key, source, seen),
      source,
      evidence: seen,
      ...(position ? { position } : {}),
    } as ExtractedField;
  };
  const best = <T extends Candidate>(candidates: T[]) =>
    [...candidates].sort((a, b) => rankOf(b.evidence) - rankOf(a.evidence))[0] as T | undefined;

  // ---- invoice number; the date printed with it ("Rechnung Nr. 42 vom 05.03.2018") is the issue date
  const idCandidates = labelled("invoice_id", invoiceNumber, 1, (hit) => hit.tier === "strong" || hit.start < 40);
  const invoiceId = best(idCandidates);
  set("invoice_id", invoiceId);
  let issue = best(dateCandidates("issue_date", (hit) => hit.tier === "strong"));
  if (!issue && invoiceId) issue = dateAfterNumber(segs, invoiceId, dateParser);
  issue ??= best(dateCandidates("issue_date", (hit) => hit.tier === "weak" && hit.start === 0));
  set("issue_date", issue);
  set("due_date", best(dateCandidates("due_date")));
  set("taxable_supply_date", best(dateCandidates("taxable_supply_date")));
  set("variable_symbol", best(labelled("variable_symbol", (text) => digitsSymbol(text) ?? invoiceNumber(text), 1)));

  // ---- parties
  const parties = findParties(segs, all, hits, hitsIn);
  const inBuyer = (seg: Seg) => parties.buyer?.has(seg) ?? false;
  const inSupplier = (seg: Seg) => parties.supplier?.has(seg) ?? false;
  if (parties.supplierName) set("supplier_name", parties.supplierName);
  if (parties.buyerName) set("buyer_name", parties.buyerName);

  // ---- IBAN: labelled or by shape, never in the buyer's block
  const ibans: Candidate[] = [];
  for (const seg of all) {
    for (const match of seg.text.matchAll(/\b[A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]{4}){2,7}(?:[ -]?[A-Z0-9]{1,4})?\b/g)) {
      const value = normalizeIban(match[0]);
      if (!value || inBuyer(seg)) continue;
      const labelledHit =
        hitsIn(seg).some((hit) => hit.key === "iban" && hit.end <= (match.index as number)) ||
        hitsIn((segs[seg.line] as Seg[])[seg.index - 1]).some((hit) => hit.key === "iban");
      ibans.push({
        value,
        evidence: { label: labelledHit ? "strong" : "none", place: labelledHit ? "inline" : "shape", check: true },
        seg,
        start: match.index as number,
        end: (match.index as number) + match[0].length,
      });
    }
  }
  const iban = best(ibans);
  set("iban", iban);
  const accounts = labelled(
    "bank_account",
    (text) => normalizeCzechAccount(text),
    3,
    (hit) => !inBuyer(hit.seg),
  );
  const account = best(accounts.map((candidate) => ({ ...candidate, evidence: { ...candidate.evidence, check: true } })));
  if (account) set("bank_account", account);
  else if (iban) {
    const fromIban = czechAccountOfIban(iban.value);
    if (fromIban) set("bank_account", { ...iban, value: fromIban });
  }

  // ---- VAT ids: every one by shape, given to the party whose block or label it stands in
  const vatIds: (Candidate & { buyer: boolean; supplier: boolean })[] = [];
  for (const seg of all) {
    const tokens = [...seg.text.matchAll(/\S+/g)];
    for (let first = 0; first < tokens.length; first += 1) {
      const head = tokens[first] as RegExpMatchArray;
      if (!/^[(:]?(?:[A-Z]{2}|CHE)/.test(head[0])) continue;
      for (let count = Math.min(4, tokens.length - first); count >= 1; count -= 1) {
        const last = tokens[first + count - 1] as RegExpMatchArray;
        const start = (head.index as number) + (/^[(:]/.test(head[0]) ? 1 : 0);
        const end = (last.index as number) + last[0].length;
        const value = normalizeVatId(seg.text.slice(start, end).replace(/[),;]$/, ""));
        if (!value) continue;
        if (ibans.some((other) => other.seg === seg && start < other.end && other.start < end)) break;
        const before = hitsIn(seg).filter((hit) => hit.end <= start);
        const left = (segs[seg.line] as Seg[])[seg.index - 1];
        const labels = [...before.slice(-1), ...(before.length === 0 && left ? hitsIn(left).slice(-1) : [])];
        const buyerLabel = labels.some((hit) => hit.key === "buyer_tax_id");
        const taxLabel = labels.some((hit) => hit.key === "tax_id" || hit.key === "total_tax");
        vatIds.push({
          value,
          evidence: {
            label: buyerLabel || taxLabel ? "strong" : "none",
            place: buyerLabel || taxLabel ? "inline" : "shape",
            check: vatChecksumHolds(value),
          },
          seg,
          start,
          end,
          buyer: buyerLabel || inBuyer(seg),
          supplier: !buyerLabel && inSupplier(seg),
        });
        first += count - 1;
        break;
      }
    }
  }
  const supplierVat =
    best(vatIds.filter((candidate) => candidate.supplier)) ??
    best(vatIds.filter((candidate) => !candidate.buyer && !candidate.supplier && !parties.buyerValues.has(candidate.value)));
  if (supplierVat) set("supplier_tax_id", supplierVat, { party: supplierVat.supplier ? true : parties.supplier ? undefined : false });
  const buyerVat = best(vatIds.filter((candidate) => candidate.buyer && candidate.value !== supplierVat?.value));
  if (buyerVat) set("buyer_tax_id", buyerVat, { party: true });

  // ---- register id: labelled, in the supplier's block or at least not the buyer's
  const registers = labelled("register_id", registerId, 3, (hit) => !inBuyer(hit.seg));
  const register = best(registers.filter((candidate) => inSupplier(candidate.seg))) ?? best(registers);
  if (register) set("supplier_register_id", register, { party: inSupplier(register.seg) ? true : parties.supplier ? false : undefined });

  // ---- line items, then totals by consistency
  const table = findLineItems(segs);
  const totals = findTotals(
    labelled,
    table?.sum,
    hits.flatMap((hit) =>
      hit.key === "total_tax"
        ? (segs[hit.seg.line] as Seg[]).filter((seg) => seg.index > hit.seg.index).map((seg) => ({ ...hit, seg }))
        : [],
    ),
  );
  for (const [key, candidate] of Object.entries(totals) as [InvoiceFieldKey, Candidate | undefined][]) {
    if (candidate) set(key, candidate);
  }
  const due = fields.total_due;
  if (due?.evidence && "label" in due.evidence && table?.grossSum !== undefined && Math.abs(table.grossSum - Number(due.value)) < 0.011) {
    due.evidence = { ...due.evidence, tableAgrees: true };
    due.confidence = confidenceOf("total_due", source, due.evidence);
  }

  // ---- currency: a labelled code, else codes and symbols, counted more where the totals stand
  const currency = findCurrency(all, hits, totals);
  if (currency) set("currency", currency);

  // ---- the kind of document: a credit note says so in its title
  const creditNote = findCreditNote(all);
  if (creditNote) set("document_type", creditNote);

  return {
    format: source === "builtin:ocr" ? "ocr" : "pdf_text",
    fields,
    ...(table ? { lineItems: lineItemsOf(table, fields, source) } : {}),
    messages: table ? rowSumWarnings(table, fields) : [],
  };
}

/**
 * A table whose rows add up to neither total printed (with or without tax) has lost or misread a row: a person should
 * look (the table's confidence falls with it, see lineItemsOf).
 */
function rowSumWarnings(table: { sum: number }, fields: ExtractionResult["fields"]): ExtractionMessage[] {
  const totals = [fields.total_due, fields.total_without_tax].flatMap((field) => (field ? [Number(field.value)] : []));
  if (totals.length === 0 || totals.some((total) => Math.abs(total - table.sum) < 0.011)) return [];
  const printed = [fields.total_without_tax?.value, fields.total_due?.value].filter(Boolean).join(" / ");
  return [
    {
      key: "line_items",
      message: `The line items add up to ${formatAmount(table.sum)}, but the invoice's total is ${printed}: a row may be missing or misread.`,
      severity: "warning",
    },
  ];
}

/** A table is trusted when its rows add up to a total printed elsewhere; rows whose cells disagree lower it. */
function lineItemsOf(
  table: { rows: LineItemRow[]; consistent: boolean; sum: number },
  fields: ExtractionResult["fields"],
  source: ValueSource,
): NonNullable<ExtractionResult["lineItems"]> {
  const totals = [fields.total_due, fields.total_without_tax].flatMap((field) => (field ? [Number(field.value)] : []));
  const evidence = { consistent: table.consistent, sumAgrees: totals.some((total) => Math.abs(total - table.sum) < 0.011) };
  return { rows: table.rows, confidence: confidenceOf("line_items", source, evidence), source, evidence };
}

// ---------------------------------------------------------------- positions

function positionOf(candidate: Candidate, pageSizes: PageSizes): FieldPosition | undefined {
  const { seg } = candidate;
  const size = pageSizes[seg.page - 1];
  if (!size || size.width <= 0 || size.height <= 0 || seg.text.length === 0) return undefined;
  const width = seg.xEnd - seg.x;
  const left = seg.x + (width * candidate.start) / seg.text.length;
  const right = seg.x + (width * Math.min(candidate.end, seg.text.length)) / seg.text.length;
  const top = seg.y - seg.height / 2;
  const bottom = seg.y + seg.height / 2;
  const clamp = (value: number) => Math.max(0, Math.min(1, Math.round(value * 10_000) / 10_000));
  return {
    page: seg.page,
    box: [clamp(left / size.width), clamp(top / size.height), clamp(right / size.width), clamp(bottom / size.height)],
  };
}

// ---------------------------------------------------------------- dates

/**
 * Words of an invoice written in a language that writes the day first (cs, sk, pl, de, nl, fr, it, es): its title and
 * its word for date. Tax labels ("TVA", "MwSt", "DIČ") are not enough: an English invoice of a French or German
 * supplier prints them too.
 */
const DAY_FIRST_LANGUAGE =
  /(?<![\p{L}])(?:(?:faktur|rechnung|factuur|factur|fattur|rachun)\p{L}*|datum|fecha|data wystawienia)(?![\p{L}])/u;
const ENGLISH_INVOICE = /(?<![\p{L}])(?:invoice|bill to|amount due)(?![\p{L}])/u;

/**
 * Day-first or month-first for numeric dates: a date whose first number is over 12 says day first, whose second
 * is says month first. Without either, a page written in a language of continental Europe (and not in English) says
 * day first; else day first unless the page speaks English and pays in dollars, `sure` false.
 */
function dateOrder(all: Seg[]): { order: DateOrder; sure: boolean } {
  let dayFirst = 0;
  let monthFirst = 0;
  for (const seg of all)
    for (const match of seg.text.matchAll(/(?<![\d.])(\d{1,2})[/-](\d{1,2})[/-](\d{4}|\d{2})(?![\d])/g)) {
      const first = Number(match[1]);
      const second = Number(match[2]);
      if (first > 12 && second <= 12) dayFirst += 1;
      if (second > 12 && first <= 12) monthFirst += 1;
    }
  if (monthFirst > dayFirst) return { order: "mdy", sure: true };
  if (dayFirst > 0) return { order: "dmy", sure: true };
  const text = all.map((seg) => seg.folded).join(" ");
  // Month first is American usage; an invoice in a language of continental Europe prints the day first.
  if (DAY_FIRST_LANGUAGE.test(text) && !ENGLISH_INVOICE.test(text)) return { order: "dmy", sure: true };
  if (/\$|\busd\b/.test(text) && /\b(invoice|total|amount)\b/.test(text)) return { order: "mdy", sure: false };
  return { order: "dmy", sure: false };
}

// ---------------------------------------------------------------- parties

interface Parties {
  supplier?: Set<Seg>;
  buyer?: Set<Seg>;
  supplierName?: Candidate;
  buyerName?: Candidate;
  /** Values that stand in the buyer's block (a VAT id there is never the supplier's). */
  buyerValues: Set<string>;
}

let HEADINGS: [role: "supplier" | "buyer" | "other", pattern: RegExp][] | undefined;

function headingOf(seg: Seg): { role: "supplier" | "buyer" | "other"; end: number } | undefined {
  HEADINGS ??= (["buyer", "supplier", "other"] as const).map((role) => [
    role,
    new RegExp(`^(?:${PARTY_HEADINGS[role].join("|")})(?![\\p{L}])(?:\\s*\\/\\s*[\\p{L}-]+)?(?:\\s*\\([^)]*\\))?\\s*:?`, "u"),
  ]);
  for (const [role, pattern] of HEADINGS) {
    const match = pattern.exec(seg.folded);
    if (!match) continue;
    const rest = seg.text.slice(match[0].length).trim();
    // A heading stands alone or introduces a name ("Dodavatel: Firma s.r.o."); "Customer:2", "Payment Terms" are not.
    if (rest && (!match[0].includes(":") || partyName(rest) === undefined || rest.length > 60)) continue;
    return { role, end: match[0].length };
  }
  return undefined;
}

/** The segment on the line just above `seg`, at its x, alone on that line's left: the start of a value in two lines. */
function continuationAbove(segs: Seg[][], seg: Seg): Seg | undefined {
  const line = segs[seg.line - 1];
  if (!line) return undefined;
  const candidate = line.find((other) => Math.abs(other.x - seg.x) < 2);
  if (!candidate || candidate.page !== seg.page || seg.y - candidate.y > seg.height * 1.6) return undefined;
  if (line.some((other) => other.xEnd < candidate.x)) return undefined;
  return partyName(candidate.text) !== undefined || /^(herrn?|frau|mr\.?|mrs\.?|ms\.?)$/i.test(candidate.text.trim())
    ? candidate
    : undefined;
}

/** Labels that belong inside a party's block. */
const PARTY_KEYS = new Set<LabelledKey>(["tax_id", "buyer_tax_id", "register_id", "name"]);

function findParties(segs: Seg[][], all: Seg[], hits: Hit[], hitsOf: (seg: Seg) => Hit[]): Parties {
  const headings = all.flatMap((seg) => {
    const heading = headingOf(seg);
    return heading ? [{ seg, ...heading }] : [];
  });
  const result: Parties = { buyerValues: new Set() };
  const blockOf = (heading: (typeof headings)[number]): Seg[] => {
    const { seg } = heading;
    const rightEdge = Math.min(
      ...headings
        .filter((other) => other.seg.page === seg.page && Math.abs(other.seg.y - seg.y) < seg.height && other.seg.x > seg.x)
        .map((other) => other.seg.x),
      Number.POSITIVE_INFINITY,
    );
    const block: Seg[] = [seg];
    let lastY = seg.y;
    for (let lineIndex = seg.line + 1; lineIndex < segs.length; lineIndex += 1) {
      const line = (segs[lineIndex] as Seg[]).filter(
        (other) => other.page === seg.page && other.x >= seg.x - seg.height * 2 && other.x < rightEdge - 1,
      );
      if ((segs[lineIndex] as Seg[])[0]?.page !== seg.page) break;
      if (line.length === 0) {
        if ((segs[lineIndex] as Seg[])[0] && ((segs[lineIndex] as Seg[])[0] as Seg).y - lastY > seg.height * 3.2) break;
        continue;
      }
      const first = line[0] as Seg;
      if (first.y - lastY > Math.max(seg.height, first.height) * 3.2) break;
      if (line.some((other) => headings.some((heading) => heading.seg === other))) break;
      // A row of the invoice's own data (number, dates, payment, totals) across the page, or of several such labels,
      // is past the party's block; one such line inside the block's column (the buyer's own IBAN) is not.
      const dataLabel = (other: Seg) => {
        const first = hitsOf(other).filter((hit) => hit.start === 0);
        return first.length > 0 && first.every((hit) => !PARTY_KEYS.has(hit.key));
      };
      const full = segs[lineIndex] as Seg[];
      if (full.filter(dataLabel).length >= 2 || full.some((other) => dataLabel(other) && !line.includes(other))) break;
      block.push(...line);
      lastY = first.y;
      if (block.length > 30) break;
    }
    return block;
  };
  const nameIn = (heading: (typeof headings)[number], block: Seg[]): Candidate | undefined => {
    const { seg } = heading;
    const rest = seg.text.slice(heading.end).replace(/^[\s:]+/, "");
    if (rest) {
      const value = partyName(rest);
      if (value) {
        const start = seg.text.length - rest.length;
        return { value, evidence: { label: "heading", place: "inline", party: true }, seg, start, end: start + value.length };
      }
    }
    // A "Name:" label inside the block.
    for (const hit of hits.filter((other) => other.key === "name" && block.includes(other.seg))) {
      const row = segs[hit.seg.line] as Seg[];
      const right = row[hit.seg.index + 1];
      const text = hit.seg.text.slice(hit.end).replace(/^[\s:]+/, "") || right?.text || "";
      const target = hit.seg.text.slice(hit.end).replace(/^[\s:]+/, "") ? hit.seg : right;
      const value = partyName(text);
      if (value && target) {
        const start = target.text.indexOf(value);
        // A name printed over two lines beside its label ("Nordlicht Versicherung" / "auf Gegenseitigkeit a.G.", "Herrn" /
        // "Jan Novak") starts on the line above, at the same x, with nothing to its left.
        const above = target === right ? continuationAbove(segs, target) : undefined;
        return {
          value: above ? `${above.text} ${value}` : value,
          evidence: { label: "heading", place: "right", party: true },
          seg: target,
          start,
          end: start + value.length,
        };
      }
    }
    for (const other of block) {
      if (other === seg || other.line === seg.line) continue;
      const value = partyName(other.text);
      if (value) return { value, evidence: { label: "heading", place: "below", party: true }, seg: other, start: 0, end: value.length };
    }
    return undefined;
  };
  for (const role of ["supplier", "buyer"] as const) {
    const heading = headings.find((entry) => entry.role === role);
    if (!heading) continue;
    const block = blockOf(heading);
    result[role] = new Set(block);
    const name = nameIn(heading, block);
    if (name) result[role === "supplier" ? "supplierName" : "buyerName"] = name;
    if (role === "buyer")
      for (const seg of block)
        for (const token of seg.text.split(/\s+/)) result.buyerValues.add(token.replace(/[^A-Z0-9]/gi, "").toUpperCase());
  }
  // A window envelope's sender line ("Firma GmbH ● Hauptstr. 1 ● 12345 Stadt") above the buyer's address.
  if (!result.supplierName || !result.buyerName) {
    for (const line of segs) {
      const text = line.map((seg) => seg.text).join(" ");
      const parts = text.split(/\s+[●•·|]\s+|\s+[-–]\s+/);
      if (parts.length < 3 || !/\b\d{4,5}\s+\p{L}/u.test(text) || (line[0] as Seg).page !== 1) continue;
      const first = line[0] as Seg;
      const name = partyName((parts[0] as string).replace(/,$/, ""));
      if (!name) continue;
      if (!result.supplierName && !result.supplier)
        result.supplierName = {
          value: name,
          evidence: { label: "heading", place: "inline", party: false },
          seg: first,
          start: 0,
          end: name.length,
        };
      if (!result.buyerName && !result.buyer) {
        for (let lineIndex = first.line + 1; lineIndex < Math.min(segs.length, first.line + 4); lineIndex += 1) {
          // The address starts under the sender line or left of it (the line is small print, often indented).
          const under = (segs[lineIndex] as Seg[]).find((seg) => seg.x > first.x - first.height * 12 && seg.x < first.x + first.height * 2);
          if (!under) continue;
          const buyer = partyName(under.text);
          if (buyer && !/^(herr|frau|mr|mrs|ms|m\.|mme)\b/i.test(buyer)) {
            result.buyerName = {
              value: buyer,
              evidence: { label: "heading", place: "below", party: false },
              seg: under,
              start: 0,
              end: buyer.length,
            };
            break;
          }
        }
      }
      break;
    }
  }
  // No heading for the supplier: the first company name on the first page outside the buyer's block.
  if (!result.supplierName) {
    for (const seg of all) {
      if (seg.page !== 1 || result.buyer?.has(seg)) continue;
      const head = seg.text.split(/\s+[-–|●•]\s+/)[0] as string;
      if (!LEGAL_FORM.test(head)) continue;
      const name = partyName(head);
      if (name) {
        result.supplierName = { value: name, evidence: { label: "none", place: "shape", party: false }, seg, start: 0, end: name.length };
        break;
      }
    }
  }
  if (!result.buyerName && !result.buyer) {
    // A delivery address's block, in its heading's column (another address may stand beside it).
    const elsewhere = headings
      .filter((entry) => entry.role === "other")
      .flatMap((entry) => blockOf(entry).filter((seg) => seg.x < entry.seg.xEnd + entry.seg.height * 4));
    const buyer = unheadedAddress(segs, all, result, elsewhere, hitsOf);
    if (buyer) result.buyerName = buyer;
  }
  return result;
}

/** A town with its postal code: "80333 München", "DE-80333 München", "110 00 Praha", "1012 AB Amsterdam", "…, CA 94105". */
const POSTAL_TOWN =
  /^(?:[A-Z]{1,2}[- ]?)?(?:\d{5}|\d{4}(?: ?[A-Z]{2}(?=\s))?|\d{3} \d{2})\s+\p{Lu}|,\s*[A-Z]{2}\s+\d{5}(?:-\d{4})?$|\b[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}$/u;

/** A street line: a house number at either end, or a word for street. */
const STREET =
  /^\d+[a-z]?\b|\b\d+[a-z]?(?:\s*[-/]\s*\d+[a-z]?)?$|\b(?:str\.|stra(?:ss|ß)e|street|road|avenue|rue|ulice|ulica|via|calle|weg|gasse|platz|laan|straat)\b/iu;

/**
 * The buyer when no heading names it (a window envelope's address with no sender line above it): the one address
 * block in the upper part of the first page — a name, then within about five lines at its x a postal code and town — that
 * is not the supplier's, not under another heading (a delivery address) and not the supplier's letterhead. Two such
 * blocks and nothing tells which is the buyer's: none is taken.
 */
function unheadedAddress(
  segs: Seg[][],
  all: Seg[],
  parties: Parties,
  elsewhere: Seg[],
  hitsOf: (seg: Seg) => Hit[],
): Candidate | undefined {
  const firstPage = all.filter((seg) => seg.page === 1);
  const bottom = Math.max(...firstPage.map((seg) => seg.y + seg.height));
  const blocked = new Set([...(parties.supplier ?? []), ...elsewhere]);
  const supplier = parties.supplierName && foldText(parties.supplierName.value);
  const blocks: { name: Candidate; lines: Set<Seg> }[] = [];
  /** Lines of an address already looked at (a street under a name starts no block of its own). */
  const seen = new Set<Seg>();
  for (const seg of firstPage) {
    if (seg.y > bottom * 0.45 || blocked.has(seg) || seen.has(seg) || hitsOf(seg).length > 0) continue;
    const name = partyName(seg.text);
    // A name line, not a street ("Musterstr. 12", "35 rue de la République") or a town.
    if (!name || seg === parties.supplierName?.seg || POSTAL_TOWN.test(seg.text) || STREET.test(name)) continue;
    const lines = new Set([seg]);
    let town = false;
    for (let lineIndex = seg.line + 1; lineIndex < segs.length && !town; lineIndex += 1) {
      const line = segs[lineIndex] as Seg[];
      if (line[0]?.page !== seg.page || (line[0]?.y ?? 0) > seg.y + seg.height * 7) break;
      const under = line.find((other) => Math.abs(other.x - seg.x) < seg.height * 1.5);
      if (!under) continue;
      if (blocked.has(under) || hitsOf(under).length > 0) break;
      lines.add(under);
      town = POSTAL_TOWN.test(under.text.trim());
    }
    for (const line of lines) seen.add(line);
    if (!town) continue;
    // The supplier's own address (its name, or its letterhead holding its name) is not the buyer's.
    if (supplier && [...lines].some((line) => foldText(line.text).includes(supplier))) continue;
    blocks.push({
      name: { value: name, evidence: { label: "none", place: "below", party: false }, seg, start: 0, end: name.length },
      lines,
    });
  }
  return blocks.length === 1 ? blocks[0]?.name : undefined;
}

// ---------------------------------------------------------------- totals

type Labelled = (key: LabelledKey, parse: Parser, maxTokens: number, filter?: (hit: Hit) => boolean) => Candidate[];

/**
 * Totals by consistency: the base, the tax and the gross total that add up (base + tax = gross) are taken
 * together; the amount due is the labelled amount to pay (after advances) where one is printed, else that gross.
 */
function findTotals(
  labelled: Labelled,
  rowSum: number | undefined,
  taxLines: Hit[],
): Partial<Record<"total_due" | "total_without_tax" | "total_tax", Candidate>> {
  const due = labelled("total_due", amount, 4);
  const gross = labelled("total_gross", amount, 4);
  const net = labelled("total_without_tax", amount, 4);
  const tax = labelled("total_tax", amount, 4);
  const num = (candidate: Candidate) => Number(candidate.value);
  // A tax printed beside its base on a breakdown line ("USt. 19% | 198,00 | 37,62"): every amount on a tax line.
  for (const hit of taxLines) {
    for (const match of hit.seg.text.matchAll(/-?\d[\d ., ]*[.,]\d{2}(?!\d)/g)) {
      const value = amount(match[0]);
      const start = match.index as number;
      if (value && !tax.some((candidate) => candidate.seg === hit.seg && candidate.start === start))
        tax.push({ value, evidence: { label: "weak", place: "inline" }, seg: hit.seg, start, end: start + match[0].length });
    }
  }
  let triple: { net: Candidate; tax: Candidate; gross: Candidate; score: number } | undefined;
  for (const n of net)
    for (const t of tax)
      for (const g of [...gross, ...due]) {
        if (Math.abs(num(n) + num(t) - num(g)) > 0.011 || num(g) === 0) continue;
        const score =
          (n.evidence.label === "strong" ? 2 : 1) +
          (t.evidence.label === "strong" ? 2 : 1) +
          (g.evidence.label === "strong" ? 2 : 1) +
          num(g) / 1e9;
        if (!triple || score > triple.score) triple = { net: n, tax: t, gross: g, score };
      }
  const result: Partial<Record<"total_due" | "total_without_tax" | "total_tax", Candidate>> = {};
  const agreed = (candidate: Candidate): Candidate => ({ ...candidate, evidence: { ...candidate.evidence, consistent: true } });
  const largest = (candidates: Candidate[]) => [...candidates].sort((a, b) => num(b) - num(a))[0];
  if (triple) {
    result.total_without_tax = agreed(triple.net);
    result.total_tax = agreed(triple.tax);
    const pay = due.filter((candidate) => num(candidate) <= num(triple.gross) + 0.005 && num(candidate) > 0);
    const explicit = pay.find((candidate) => Math.abs(num(candidate) - num(triple.gross)) < 0.011) ?? pay[pay.length - 1];
    result.total_due = explicit
      ? Math.abs(num(explicit) - num(triple.gross)) < 0.011
        ? agreed(explicit)
        : explicit
      : agreed(triple.gross);
    return result;
  }
  const strongGross = gross.filter((candidate) => candidate.evidence.label === "strong");
  const dueValue = due[due.length - 1] ?? largest(strongGross) ?? largest(gross);
  if (dueValue) {
    const consistent = rowSum !== undefined && Math.abs(rowSum - num(dueValue)) < 0.011;
    result.total_due = consistent ? agreed(dueValue) : dueValue;
  }
  const strongNet = net.filter((candidate) => candidate.evidence.label === "strong");
  if (strongNet[0]) {
    const consistent = rowSum !== undefined && Math.abs(rowSum - num(strongNet[0])) < 0.011;
    result.total_without_tax = consistent ? agreed(strongNet[0]) : strongNet[0];
  }
  const strongTax = tax.filter((candidate) => candidate.evidence.label === "strong");
  if (strongTax[0]) result.total_tax = strongTax[0];
  return result;
}

// ---------------------------------------------------------------- currency

const CURRENCY_MARKS: [RegExp, string][] = [
  [/\bCZK\b|Kč|\bKc\b/g, "CZK"],
  [/\bEUR\b|€/g, "EUR"],
  // Not "19 $": OCR reads a VAT rate's "%" as "$", and a dollar amount puts its sign first.
  [/\bUSD\b|US\$|(?<!(?:^|\s)\d{1,2}(?:[.,]\d{1,2})? ?)\$/g, "USD"],
  [/\bGBP\b|£/g, "GBP"],
  [/\bPLN\b|zł/g, "PLN"],
  [/\bCHF\b/g, "CHF"],
  [/\bHUF\b/g, "HUF"],
  [/\bSEK\b/g, "SEK"],
  [/\bDKK\b/g, "DKK"],
  [/\bNOK\b/g, "NOK"],
];

/**
 * A credit note's title in the languages the labels cover ("Rechnungskorrektur", "Credit note", "Dobropis", "Avoir", …).
 * Not "Gutschrift": in German it names a self-billed invoice as often as a credit (the corpus has both).
 */
const CREDIT_NOTE_TITLE =
  /^(rechnungskorrektur|stornorechnung|credit note|credit memo|creditnota|creditfactuur|dobropis|opravny danovy doklad|faktura korygujaca|nota korygujaca|avoir|facture d'avoir|nota di credito|nota de credito|factura rectificativa)\b/;

/**
 * `credit_note` when a line of the page's upper half starts with a credit note's title; nothing otherwise (an
 * invoice's title proves nothing an e-invoice's type code would not, and a wrong kind is worse than none).
 */
function findCreditNote(all: Seg[]): Candidate | undefined {
  const firstPage = all.filter((seg) => seg.page === 1);
  const lowest = Math.max(...firstPage.map((seg) => seg.y));
  const seg = firstPage.find((candidate) => candidate.y <= lowest / 2 && CREDIT_NOTE_TITLE.test(candidate.folded.trim()));
  return seg && { value: "credit_note", evidence: { label: "strong", place: "inline" }, seg, start: 0, end: seg.text.length };
}

function findCurrency(all: Seg[], hits: Hit[], totals: Partial<Record<string, Candidate>>): Candidate | undefined {
  for (const hit of hits.filter((entry) => entry.key === "currency")) {
    const after = hit.seg.text.slice(hit.end).replace(/^[\s:]+/, "");
    const row = all.filter((seg) => seg.line === hit.seg.line && seg.index === hit.seg.index + 1)[0];
    const text = after || row?.text || "";
    const code = /^[A-Z]{3}\b/.exec(text.trim())?.[0];
    if (code && CURRENCY_MARKS.some(([, known]) => known === code)) {
      const seg = after ? hit.seg : (row as Seg);
      const start = seg.text.indexOf(code);
      return { value: code, evidence: { label: "strong", place: after ? "inline" : "right" }, seg, start, end: start + 3 };
    }
  }
  const totalLines = new Set(Object.values(totals).flatMap((candidate) => (candidate ? [candidate.seg.line] : [])));
  const counts = new Map<string, { count: number; seg: Seg; start: number; end: number }>();
  for (const seg of all)
    for (const [pattern, code] of CURRENCY_MARKS)
      for (const match of seg.text.matchAll(pattern)) {
        const weight = totalLines.has(seg.line) ? 5 : 1;
        const entry = counts.get(code) ?? { count: 0, seg, start: match.index as number, end: (match.index as number) + match[0].length };
        entry.count += weight;
        if (weight > 1) Object.assign(entry, { seg, start: match.index as number, end: (match.index as number) + match[0].length });
        counts.set(code, entry);
      }
  const ranked = [...counts].sort((a, b) => b[1].count - a[1].count);
  const top = ranked[0];
  if (!top) return undefined;
  const runnerUp = ranked[1]?.[1].count ?? 0;
  const nearTotals = totalLines.has(top[1].seg.line);
  return {
    value: top[0],
    evidence: { label: nearTotals ? "weak" : "none", place: "shape", consistent: top[1].count >= 3 * Math.max(1, runnerUp) && nearTotals },
    seg: top[1].seg,
    start: top[1].start,
    end: top[1].end,
  };
}

// ---------------------------------------------------------------- line items

type ColumnKind = LineItemColumn | "net_amount" | "ignore";
const COLUMN_RULES: { column: ColumnKind; pattern: RegExp }[] = [
  {
    column: "net_amount",
    pattern: /(netto(betrag|wert)|total ht|prix ht|montant ht|net amount|line total|wartosc netto|bez dph|w\/o|excl|ohne (ust|mwst))/,
  },
  {
    column: "total_incl_tax",
    pattern: /(celkem|celkom|total|gesamt|brutto|amount|betrag|montant|bedrag|totaal|wartosc|razem|importo|importe|s dph|ttc)/,
  },
  { column: "vat_rate", pattern: /(dph|vat|mwst|ust|sazba|tva|btw|iva|steuersatz|tax rate|%)/ },
  { column: "unit_price", pattern: /(cena|price|preis|prix|prijs|stuksprijs|prezzo|precio|einzel)/ },
  { column: "quantity", pattern: /(mnozstvi|mnozstvo|pocet|qty|quantity|menge|anzahl|quantite|qte|aantal|ilosc|quantita|cantidad)/ },
  {
    column: "activity",
    pattern:
      /(popis|polozka|oznaceni|nazev|description|item|beschreibung|bezeichnung|leistung|artikel|produkt|product|designation|libelle|omschrijving|nazwa|opis|descrizione|descripcion|concepto)/,
  },
];

function columnOf(text: string): ColumnKind | undefined {
  const value = foldText(text);
  return COLUMN_RULES.find((rule) => rule.pattern.test(value))?.column;
}

function distance(a: { x: number; xEnd: number }, b: { x: number; xEnd: number }): number {
  if (a.xEnd < b.x) return b.x - a.xEnd;
  if (b.xEnd < a.x) return a.x - b.xEnd;
  return -(Math.min(a.xEnd, b.xEnd) - Math.max(a.x, b.x));
}

const TABLE_END =
  /(celkem|celkom|total|summe|zwischensumme|gesamt|sous-total|subtotal|totaal|razem|totale|nettobetrag|net total|tax|steuer)/;

/**
 * A unit price printed with four decimals ("0,0520", "12,1250 EUR"), as short as it can be written. Three decimals are
 * not taken: "1,000" may be a thousand.
 */
function finePrice(text: string): string | undefined {
  const bare = text.trim().replace(/\s*(?:[A-Z]{3}|[€$£]|K[čc])$/u, "");
  if (!/^\d{1,3}(?:[ .]?\d{3})*[.,]\d{4}$/.test(bare)) return undefined;
  return formatQuantity(Number(`${bare.slice(0, -5).replace(/[ .]/g, "")}.${bare.slice(-4)}`));
}

/** Lines after a table's last row before it is taken as ended (a row's own lines included). */
const MAX_ROW_LINES = 15;

/** A page's carried-over amount, printed where a table breaks across pages: never a row. */
const CARRIED_OVER =
  /^(ubertrag|uebertrag|carried (forward|over)|brought forward|a reporter|report a nouveau|prevod z|z prenosu|z przeniesienia|riporto)\b/;

/** A table's header line (three columns or more named), as a page after the first repeats it. */
function isHeaderLine(line: readonly Seg[]): boolean {
  return new Set(line.map((segment) => columnOf(segment.text)).filter((column) => column !== undefined)).size >= 3;
}

type HeaderCell = { segment: { x: number; xEnd: number; text: string }; column: ColumnKind };

/** A header names an item and at least two more columns, one of them an amount. */
function isTableHeader(cells: readonly HeaderCell[]): boolean {
  const columns = new Set(cells.map((cell) => cell.column).filter((column) => column !== "ignore"));
  return columns.size >= 3 && (columns.has("total_incl_tax") || columns.has("net_amount")) && columns.has("activity");
}

/** A line that can be part of a header printed over several lines: words only (no figures but a per cent sign). */
const headerWords = (line: readonly Seg[]) => line.every((seg) => !/\d/.test(seg.text));

/**
 * The table header at line `index`: the line itself where it names the columns; else the line with the header lines
 * stacked close above and below it ("Positions- | betrag | … | ohne | USt." over and under "Pos | Beschreibung |
 * Nettopreis | Menge | USt."), each column's words joined top to bottom, and the columns none of whose words is
 * known kept as `ignore` (what stands under them is not an item's text).
 */
function tableHeaderAt(segs: Seg[][], index: number): { cells: HeaderCell[]; end: number } | undefined {
  const core = segs[index] as Seg[];
  const named = core.flatMap((segment) => {
    const column = columnOf(segment.text);
    return column ? [{ segment, column }] : [];
  });
  if (isTableHeader(named)) return { cells: named, end: index };
  const first = core[0] as Seg;
  if (named.length < 2 || !headerWords(core)) return undefined;
  const stacked: Seg[] = [];
  let end = index;
  for (const step of [-1, 1])
    for (let distanceInLines = 1; distanceInLines <= 2; distanceInLines += 1) {
      const line = segs[index + step * distanceInLines];
      const lead = line?.[0];
      if (!line || !lead || lead.page !== first.page || Math.abs(lead.y - first.y) > first.height * 1.6 * distanceInLines) break;
      if (!headerWords(line)) break;
      stacked.push(...line);
      end = Math.max(end, index + step * distanceInLines);
    }
  if (stacked.length === 0) return undefined;
  const cells = core.map((seg) => ({ x: seg.x, xEnd: seg.xEnd, parts: [{ y: seg.y, text: seg.text }] }));
  for (const seg of [...stacked].sort((a, b) => Math.abs(a.y - first.y) - Math.abs(b.y - first.y))) {
    const cell = cells.find((candidate) => distance(candidate, seg) < 0);
    if (!cell) cells.push({ x: seg.x, xEnd: seg.xEnd, parts: [{ y: seg.y, text: seg.text }] });
    else {
      cell.parts.push({ y: seg.y, text: seg.text });
      cell.x = Math.min(cell.x, seg.x);
      cell.xEnd = Math.max(cell.xEnd, seg.xEnd);
    }
  }
  const merged = cells.map((cell) => {
    const text = cell.parts
      .sort((a, b) => a.y - b.y)
      .map((part) => part.text)
      .join(" ")
      .replace(/-\s+(?=\p{Ll})/gu, "");
    return { segment: { x: cell.x, xEnd: cell.xEnd, text }, column: columnOf(text) ?? ("ignore" as const) };
  });
  return isTableHeader(merged) ? { cells: merged, end } : undefined;
}

/**
 * The line-item table: a header line naming an item and at least two more columns, one an amount; rows are lines
 * with an amount under it. Lines between rows without one continue the row above; a totals line ends the table.
 */
function findLineItems(segs: Seg[][]): { rows: LineItemRow[]; consistent: boolean; sum: number; grossSum: number | undefined } | undefined {
  for (let index = 0; index < segs.length; index += 1) {
    const found = tableHeaderAt(segs, index);
    if (!found) continue;
    const header = found.cells;
    const columns = new Set(header.map((entry) => entry.column));
    const amountColumn: ColumnKind = columns.has("total_incl_tax") ? "total_incl_tax" : "net_amount";
    const rows: LineItemRow[] = [];
    const amounts: number[] = [];
    let consistent = true;
    let misses = 0;
    /**
     * A row's own lines (its article numbers, packing, properties) may stand between it and the next row; after six of
     * them a line is a row only where it fills the columns the first row filled (a footer's "Skonto 2 % … 10,00" does
     * not), and after fifteen the table has ended.
     */
    let shape: string[] | undefined;
    let pending: { row: LineItemRow; y: number; height: number } | undefined;
    // Where the table goes on after a page break: the next page's repeated header, within a page's footer and header.
    const continuation = (from: number): number | undefined => {
      const page = (segs[from] as Seg[])[0]?.page ?? 0;
      for (let next = from + 1; next < Math.min(segs.length, from + 25); next += 1) {
        const line = segs[next] as Seg[];
        if ((line[0] as Seg).page > page && isHeaderLine(line)) return next;
      }
      return undefined;
    };
    for (let rowIndex = found.end + 1; rowIndex < segs.length; rowIndex += 1) {
      const line = segs[rowIndex] as Seg[];
      const ends =
        misses >= MAX_ROW_LINES ||
        (TABLE_END.test((line[0] as Seg).folded) && !/\d/.test(((line[0] as Seg).folded.match(/^\D*/) ?? [""])[0].slice(0, 1)));
      if (ends && rows.length) {
        // A page's subtotal, a footer or a gap before the page ends: the table goes on if the next page repeats its header.
        const next = continuation(rowIndex);
        if (next === undefined) break;
        rowIndex = next;
        misses = 0;
        pending = undefined;
        continue;
      }
      if (misses >= MAX_ROW_LINES) break;
      // Carried-over amounts ("Übertrag", "carried forward") and a repeated header are not rows.
      if (CARRIED_OVER.test((line[0] as Seg).folded) || isHeaderLine(line)) continue;
      const row: LineItemRow & { net_amount?: string } = {};
      for (const segment of line) {
        let nearest: { column: ColumnKind; distance: number } | undefined;
        for (const entry of header) {
          const gap = distance(segment, entry.segment);
          if (!nearest || gap < nearest.distance) nearest = { column: entry.column, distance: gap };
        }
        if (!nearest || nearest.column === "ignore") continue;
        const text = segment.text;
        if (nearest.column === "activity") row.activity = row.activity ? `${row.activity} ${text}` : text;
        else if (nearest.column === "vat_rate") {
          const rate = parseAmount(text.replace("%", ""));
          if (rate !== undefined && rate >= 0 && rate < 100) row.vat_rate = formatQuantity(rate);
        } else if (nearest.column === "quantity") {
          // A quantity's unit after it is any short word ("5 ks", "10000 KWH", "27,5 Std", "25 Liter(s)").
          const quantity = parseAmount(text.replace(/\s*(?:\p{L}{1,8}(?:\(s\))?|m[23²³])\.?$/iu, ""));
          if (quantity !== undefined) row.quantity = formatQuantity(quantity);
        } else {
          // In a table's amount column a whole number is an amount too ("300"); a unit price may have four decimals
          // ("0,0520 €" a kWh), kept rather than rounded to cents.
          const value =
            amount(text) ??
            (/^\d{1,7}$/.test(text.trim()) ? formatAmount(Number(text.trim())) : undefined) ??
            (nearest.column === "unit_price" ? finePrice(text) : undefined);
          if (value !== undefined) row[nearest.column] = value;
        }
      }
      let lineAmount = row[amountColumn as "total_incl_tax" | "net_amount"];
      // A row whose amount sits a little lower than its text (its own line here) is one row.
      const lineY = (line[0] as Seg).y;
      if (lineAmount !== undefined && row.activity === undefined && pending && lineY - pending.y < pending.height * 1.6) {
        Object.assign(row, { ...pending.row, ...row });
        lineAmount = row[amountColumn as "total_incl_tax" | "net_amount"];
      }
      const unlike = misses >= 6 && shape !== undefined && shape.some((column) => !(column in row));
      if (lineAmount === undefined || row.activity === undefined || unlike) {
        pending = lineAmount === undefined && row.activity !== undefined ? { row, y: lineY, height: (line[0] as Seg).height } : undefined;
        misses += 1;
        continue;
      }
      pending = undefined;
      misses = 0;
      shape ??= Object.keys(row);
      amounts.push(Number(lineAmount));
      if (row.quantity && row.unit_price && row.vat_rate && amountColumn === "total_incl_tax") {
        const net = Math.round(Number(row.quantity) * Number(row.unit_price) * 100) / 100;
        const gross = Math.round(net * (100 + Number(row.vat_rate))) / 100;
        if (Math.abs(gross - Number(row.total_incl_tax)) > 0.011) consistent = false;
      }
      delete row.net_amount;
      rows.push(row);
    }
    if (rows.length) {
      const sum = Math.round(amounts.reduce((total, value) => total + value, 0) * 100) / 100;
      return { rows, consistent, sum, grossSum: amountColumn === "total_incl_tax" ? sum : undefined };
    }
  }
  return undefined;
}
