import type { Line, Segment } from "./page-text.js";
import type { ExtractedField, ExtractionResult, InvoiceFieldKey, LineItemColumn, LineItemRow, ValueSource } from "./types.js";
import {
  czechAccountOfIban,
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
} from "./validators.js";

/** A parser answers the normalized value of a candidate text, or undefined when the text is not one. */
type Parser = (text: string) => string | undefined;

const invoiceNumber: Parser = (text) => {
  const token = text.trim().replace(/^[#:.\s]+/, "");
  return /^[A-Z0-9][A-Z0-9\-/_.]{1,30}$/i.test(token) && /\d/.test(token) && !normalizeDate(token) ? token : undefined;
};
const amount: Parser = (text) => {
  const value = parseAmount(text);
  return value === undefined || !/[.,]\d{2}\b|^\s*\d/.test(text) ? undefined : formatAmount(value);
};
const date: Parser = (text) => normalizeDate(text);
const digits: Parser = (text) => (/^\d{1,10}$/.test(text.trim()) ? text.trim() : undefined);
const registerId: Parser = (text) => normalizeIco(text) ?? normalizeGermanRegister(text);
/** Words that label a value, never a party's name (they stood where a name was looked for on six layouts). */
const LABEL_WORD =
  /^(nummer|number|name|datum|date|nr|no|cislo|c|tel|telefon|phone|fax|e-?mail|web|iban|bic|swift|ust-?id(nr)?|steuernummer|vat|dic|ico)\.?$/;

/** A party's name: more letters than digits (not "4000001123452 (GLN)"), and not a label ("Nummer:", "Name"). */
const name: Parser = (text) => {
  const trimmed = text.trim();
  const letters = trimmed.match(/\p{L}/gu)?.length ?? 0;
  const digitCount = trimmed.match(/\d/g)?.length ?? 0;
  if (trimmed.length < 2 || letters === 0 || digitCount > letters || /:$/.test(trimmed)) return undefined;
  return LABEL_WORD.test(foldText(trimmed)) ? undefined : trimmed;
};

interface FieldRule {
  key: InvoiceFieldKey;
  /** Labels, matched at the start of a segment's folded text (lower case, no diacritics); earlier tiers win. */
  labels: RegExp[];
  parse: Parser;
  /** How many words of the text after a label may form the value (an IBAN printed in groups needs several). */
  maxTokens: number;
}

const RULES: FieldRule[] = [
  {
    key: "invoice_id",
    labels: [
      /^(cislo faktury|cislo dokladu|doklad c\.?|invoice\s*(no\.?|number|#|nr\.?)|rechnungs?\s*-?\s*(nr\.?|nummer))\s*[:#]?/,
      /^(faktura\s*-?\s*(danovy doklad)?\s*(c\.|cislo|c)?|invoice|rechnung)\s*[:#]?/,
    ],
    parse: invoiceNumber,
    maxTokens: 1,
  },
  {
    key: "issue_date",
    labels: [
      /^(datum vystaveni|vystaveno|issue date|invoice date|date of issue|issued on|rechnungsdatum|ausstellungsdatum)\s*:?/,
      /^(datum|date)\s*:?/,
    ],
    parse: date,
    maxTokens: 4,
  },
  {
    key: "due_date",
    labels: [/^(datum splatnosti|splatnost|due date|payment due|date due|due on|due|falligkeitsdatum|fallig am|fallig|zahlbar bis)\s*:?/],
    parse: date,
    maxTokens: 4,
  },
  {
    key: "total_due",
    labels: [
      /^(celkem k uhrade|k uhrade|castka k uhrade|total due|amount due|balance due|amount payable|zu zahlen|zahlbetrag|gesamtbetrag|rechnungsbetrag|endbetrag)\s*(\((czk|eur|kc)\))?\s*:?/,
      /^(celkem|total amount|total|gesamt|summe)\s*(\((czk|eur|kc)\))?\s*:?/,
    ],
    parse: amount,
    maxTokens: 4,
  },
  {
    key: "variable_symbol",
    labels: [/^(variabilni symbol|var\. ?symbol|v\.?s\.?|variable symbol|payment reference|verwendungszweck)\s*:?/],
    parse: digits,
    maxTokens: 1,
  },
  { key: "iban", labels: [/^iban\s*:?/], parse: (text) => normalizeIban(text), maxTokens: 8 },
  {
    key: "bank_account",
    labels: [/^(cislo uctu|bankovni ucet|bankovni spojeni|ucet|account number|account no\.?|bank account|kontonummer|konto)\s*:?/],
    parse: (text) => normalizeCzechAccount(text),
    maxTokens: 3,
  },
];

const SUPPLIER_LABEL = /^(dodavatel|supplier|seller|vendor|from|lieferant|verkaufer|rechnungssteller|leistungserbringer)\b\s*:?/;
const BUYER_LABEL = /^(odberatel|customer|buyer|bill to|billed to|to|kunde|kaufer|rechnungsempfanger|empfanger)\b\s*:?/;
const TAX_ID_LABEL = /^(dic|vat id|vat no\.?|vat reg\.? no\.?|vat number|tax id|ust-?idnr\.?|ust-?id|umsatzsteuer-?id(nr)?\.?)\s*:?/;
const REGISTER_LABEL =
  /^(ico|ic|company id|company no\.?|reg\.? no\.?|registration no\.?|registration number|handelsregister|registergericht|register)\s*:?/;

interface Candidate {
  value: string;
  confidence: number;
}

function folded(segment: Segment): string {
  return foldText(segment.text);
}

/** The longest run of leading words of `text` that the parser accepts. */
function leadingValue(text: string, parse: Parser, maxTokens: number): string | undefined {
  const tokens = text.trim().split(/\s+/).filter(Boolean);
  for (let count = Math.min(maxTokens, tokens.length); count >= 1; count -= 1) {
    const value = parse(tokens.slice(0, count).join(" "));
    if (value !== undefined) return value;
  }
  return undefined;
}

/** Segments of the lines just below `segment` whose horizontal span overlaps it, nearest first. */
function below(lines: Line[], lineIndex: number, segment: Segment, depth = 2): Segment[] {
  const found: Segment[] = [];
  for (let index = lineIndex + 1; index < lines.length && index <= lineIndex + depth; index += 1) {
    const line = lines[index] as Line;
    if (line.page !== segment.page) break;
    for (const other of line.segments) {
      if (other.x < segment.xEnd + segment.height && other.xEnd > segment.x - segment.height) found.push(other);
    }
  }
  return found;
}

/** The original text after the label, given the label's length in folded text (folding keeps lengths of Latin letters). */
function restAfter(segment: Segment, labelLength: number): string {
  return segment.text
    .normalize("NFC")
    .slice(labelLength)
    .replace(/^[\s:.#-]+/, "");
}

function findLabelled(
  lines: Line[],
  tiers: RegExp | RegExp[],
  parse: Parser,
  maxTokens: number,
  within: (segment: Segment) => boolean = () => true,
): Candidate | undefined {
  for (const labels of Array.isArray(tiers) ? tiers : [tiers]) {
    const found = findWithLabel(lines, labels, parse, maxTokens, within);
    if (found) return found;
  }
  return undefined;
}

function findWithLabel(
  lines: Line[],
  labels: RegExp,
  parse: Parser,
  maxTokens: number,
  within: (segment: Segment) => boolean = () => true,
): Candidate | undefined {
  for (let lineIndex = 0; lineIndex < lines.length; lineIndex += 1) {
    const line = lines[lineIndex] as Line;
    for (let segmentIndex = 0; segmentIndex < line.segments.length; segmentIndex += 1) {
      const segment = line.segments[segmentIndex] as Segment;
      if (!within(segment)) continue;
      const match = labels.exec(folded(segment));
      if (!match) continue;
      const rest = restAfter(segment, match[0].length);
      if (rest) {
        const value = leadingValue(rest, parse, maxTokens);
        if (value !== undefined) return { value, confidence: 90 };
        continue;
      }
      const right = line.segments[segmentIndex + 1];
      if (right) {
        const value = leadingValue(right.text, parse, maxTokens);
        if (value !== undefined) return { value, confidence: 90 };
      }
      for (const under of below(lines, lineIndex, segment)) {
        const value = leadingValue(under.text, parse, maxTokens);
        if (value !== undefined) return { value, confidence: 85 };
      }
    }
  }
  return undefined;
}

/** Values found by their own shape anywhere on the page (an IBAN passes mod-97 wherever it stands). */
function findByShape(lines: Line[], pattern: RegExp, parse: Parser, within: (segment: Segment) => boolean = () => true): string[] {
  const found: string[] = [];
  for (const line of lines) {
    for (const segment of line.segments) {
      if (!within(segment)) continue;
      for (const match of segment.text.matchAll(pattern)) {
        const value = parse(match[0]);
        if (value !== undefined && !found.includes(value)) found.push(value);
      }
    }
  }
  return found;
}

interface Region {
  contains(segment: Segment): boolean;
  nameSegment?: Segment;
  nameFromLabel?: string;
}

/**
 * The supplier's block: from its label down to the buyer's label, or left of the buyer's label when the
 * two stand side by side. Without a supplier label, the part of the page above the buyer's block.
 */
function supplierRegion(lines: Line[]): Region | undefined {
  let supplier: { segment: Segment; line: number; rest: string } | undefined;
  let buyer: Segment | undefined;
  lines.forEach((line, lineIndex) => {
    for (const segment of line.segments) {
      const text = folded(segment);
      const supplierMatch = SUPPLIER_LABEL.exec(text);
      if (supplierMatch && !supplier) supplier = { segment, line: lineIndex, rest: restAfter(segment, supplierMatch[0].length) };
      else if (BUYER_LABEL.test(text) && !buyer && (!/^to\b/.test(text) || text.length < 5)) buyer = segment;
    }
  });
  if (!supplier) return undefined;
  const start = supplier.segment;
  const sideBySide = buyer && buyer.page === start.page && Math.abs(buyer.y - start.y) < start.height;
  const top = start.y - start.height / 2;
  const contains = (segment: Segment) => {
    if (segment.page !== start.page || segment.y < top) return false;
    if (segment.y > start.y + start.height * 14) return false;
    if (buyer && sideBySide) return segment.x < buyer.x - 1 && segment.x >= start.x - start.height * 2;
    if (buyer && buyer.page === start.page && buyer.y > start.y) return segment.y < buyer.y - buyer.height / 2;
    return true;
  };
  let nameSegment: Segment | undefined;
  if (!supplier.rest) {
    for (let index = supplier.line + 1; index < lines.length && !nameSegment; index += 1) {
      nameSegment = (lines[index] as Line).segments.find((segment) => contains(segment) && name(segment.text) !== undefined);
    }
  }
  return { contains, ...(nameSegment ? { nameSegment } : {}), ...(supplier.rest ? { nameFromLabel: supplier.rest } : {}) };
}

type ColumnRule = { column: LineItemColumn; pattern: RegExp };
const COLUMN_RULES: ColumnRule[] = [
  { column: "total_incl_tax", pattern: /(celkem|total|gesamt|brutto|amount|betrag)/ },
  { column: "unit_price", pattern: /(cena|price|preis)/ },
  { column: "quantity", pattern: /(mnozstvi|pocet|qty|quantity|menge|anzahl)/ },
  { column: "vat_rate", pattern: /(dph|vat|mwst|ust|sazba|tax)/ },
  { column: "activity", pattern: /(popis|polozka|oznaceni|nazev|description|item|beschreibung|bezeichnung|leistung|artikel)/ },
];

function columnOf(text: string): LineItemColumn | undefined {
  const value = foldText(text);
  return COLUMN_RULES.find((rule) => rule.pattern.test(value))?.column;
}

function distance(a: { x: number; xEnd: number }, b: { x: number; xEnd: number }): number {
  if (a.xEnd < b.x) return b.x - a.xEnd;
  if (b.xEnd < a.x) return a.x - b.xEnd;
  return -(Math.min(a.xEnd, b.xEnd) - Math.max(a.x, b.x));
}

/** The line-item table: a header line naming at least three columns, then rows until a line without an amount. */
function findLineItems(lines: Line[]): { rows: LineItemRow[]; consistent: boolean } | undefined {
  for (let index = 0; index < lines.length; index += 1) {
    const header = (lines[index] as Line).segments
      .map((segment) => ({ segment, column: columnOf(segment.text) }))
      .filter((entry): entry is { segment: Segment; column: LineItemColumn } => entry.column !== undefined);
    const columns = new Set(header.map((entry) => entry.column));
    if (columns.size < 3 || !columns.has("total_incl_tax")) continue;
    const rows: LineItemRow[] = [];
    let consistent = true;
    for (let rowIndex = index + 1; rowIndex < lines.length; rowIndex += 1) {
      const line = lines[rowIndex] as Line;
      const row: LineItemRow = {};
      for (const segment of line.segments) {
        let best: { column: LineItemColumn; distance: number } | undefined;
        for (const entry of header) {
          const gap = distance(segment, entry.segment);
          if (!best || gap < best.distance) best = { column: entry.column, distance: gap };
        }
        if (!best) continue;
        const text = segment.text;
        if (best.column === "activity") row.activity = row.activity ? `${row.activity} ${text}` : text;
        else if (best.column === "vat_rate") {
          const rate = parseAmount(text.replace("%", ""));
          if (rate !== undefined) row.vat_rate = formatQuantity(rate);
        } else if (best.column === "quantity") {
          const quantity = parseAmount(text.replace(/\s*(ks|pcs|stk|h|hod|m|kg|x)\.?$/i, ""));
          if (quantity !== undefined) row.quantity = formatQuantity(quantity);
        } else {
          const value = parseAmount(text);
          if (value !== undefined) row[best.column] = formatAmount(value);
        }
      }
      if (row.total_incl_tax === undefined || row.activity === undefined) break;
      if (row.quantity && row.unit_price && row.vat_rate) {
        const net = Math.round(Number(row.quantity) * Number(row.unit_price) * 100) / 100;
        const gross = Math.round(net * (100 + Number(row.vat_rate))) / 100;
        if (Math.abs(gross - Number(row.total_incl_tax)) > 0.011) consistent = false;
      }
      rows.push(row);
    }
    if (rows.length) return { rows, consistent };
  }
  return undefined;
}

const CURRENCIES: [RegExp, string][] = [
  [/\bCZK\b|Kč|\bKc\b/g, "CZK"],
  [/\bEUR\b|€/g, "EUR"],
  [/\bUSD\b|\$/g, "USD"],
  [/\bGBP\b|£/g, "GBP"],
];

/**
 * Finds invoice fields in the words of a page: by their labels (Czech, English, German), then by their
 * shape, each candidate validated (checksums, real dates, amounts), with a confidence per field.
 */
export function fieldsFromLines(lines: Line[], source: ValueSource): ExtractionResult {
  const scale = source === "builtin:ocr" ? 0.9 : 1;
  const fields: ExtractionResult["fields"] = {};
  const set = (key: InvoiceFieldKey, candidate: Candidate | undefined) => {
    if (candidate) fields[key] = { value: candidate.value, confidence: Math.round(candidate.confidence * scale), source } as ExtractedField;
  };
  for (const rule of RULES) set(rule.key, findLabelled(lines, rule.labels, rule.parse, rule.maxTokens));

  if (!fields.iban) {
    const ibans = findByShape(lines, /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}(?: ?[A-Z0-9]{1,4})?\b/g, (text) => normalizeIban(text));
    if (ibans[0]) set("iban", { value: ibans[0], confidence: 75 });
  } else fields.iban.confidence = Math.min(100, fields.iban.confidence + 5);
  if (!fields.bank_account) {
    const accounts = findByShape(lines, /\b(?:\d{1,6}-)?\d{2,10}\/\d{4}\b/g, (text) => normalizeCzechAccount(text));
    const fromIban = fields.iban ? czechAccountOfIban(fields.iban.value) : undefined;
    if (accounts[0]) set("bank_account", { value: accounts[0], confidence: 70 });
    else if (fromIban) set("bank_account", { value: fromIban, confidence: 80 });
  }

  const region = supplierRegion(lines);
  const inSupplier = region ? region.contains : () => true;
  const regionConfidence = region ? 0 : -15;
  const taxId =
    findLabelled(lines, TAX_ID_LABEL, (text) => normalizeVatId(text), 3, inSupplier) ??
    (() => {
      const shaped = findByShape(lines, /\b[A-Z]{2}U?[A-Z0-9]{8,12}\b/g, (text) => normalizeVatId(text), inSupplier);
      return shaped[0] ? { value: shaped[0], confidence: 65 } : undefined;
    })();
  if (taxId) set("supplier_tax_id", { value: taxId.value, confidence: taxId.confidence + regionConfidence });
  const register = findLabelled(lines, REGISTER_LABEL, registerId, 2, inSupplier);
  if (register) set("supplier_register_id", { value: register.value, confidence: register.confidence + regionConfidence });
  const supplierName = name(region?.nameFromLabel ?? "") ?? (region?.nameSegment ? name(region.nameSegment.text) : undefined);
  if (supplierName) set("supplier_name", { value: supplierName, confidence: 75 });

  const table = findLineItems(lines);
  if (fields.total_due && table) {
    const sum = table.rows.reduce((total, row) => total + Number(row.total_incl_tax ?? 0), 0);
    if (Math.abs(sum - Number(fields.total_due.value)) < 0.011) fields.total_due.confidence = Math.round(98 * scale);
  }
  if (!fields.total_due && table) {
    const sum = table.rows.reduce((total, row) => total + Number(row.total_incl_tax ?? 0), 0);
    set("total_due", { value: formatAmount(sum), confidence: 55 });
  }

  const allText = lines.flatMap((line) => line.segments.map((segment) => segment.text)).join("\n");
  let best: { code: string; count: number } | undefined;
  for (const [pattern, code] of CURRENCIES) {
    const count = allText.match(pattern)?.length ?? 0;
    if (count > 0 && (!best || count > best.count)) best = { code, count };
  }
  if (best) set("currency", { value: best.code, confidence: 80 });

  return {
    format: source === "builtin:ocr" ? "ocr" : "pdf_text",
    fields,
    ...(table ? { lineItems: { rows: table.rows, confidence: Math.round((table.consistent ? 90 : 60) * scale), source } } : {}),
    messages: [],
  };
}
