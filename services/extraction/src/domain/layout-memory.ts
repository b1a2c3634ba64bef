import type { Annotation, SchemaField } from "@docex/annotations";
import type { PageWord } from "../engine/types.js";
import { foldText, formatAmount, normalizeDate, normalizeIban, parseAmount } from "../engine/validators.js";

/**
 * Where a supplier prints each field (issue 36, item 7): learned from documents people validated, used to read the
 * next invoice of the same layout. A place is the value's box and the label printed before it (its **anchor**: the
 * words just left of the value on its line, else just above it); on the next invoice the anchor is found again and the
 * value read from the same place relative to it, so a layout that shifts a little still reads right.
 */

type Box = [number, number, number, number];

/** One field's place in a supplier's layout. */
export interface LayoutPlace {
  fieldKey: string;
  page: number;
  /** The anchor's words, folded (lower case, no diacritics), space-separated; null when the value has none near it. */
  anchor: string | null;
  anchorBox: Box | null;
  valueBox: Box;
  /** Validations whose value was read from this place and kept (confirmed) or corrected (missed). */
  confirmed: number;
  missed: number;
}

/** Words of the file's pages, by page number. */
export type PageWords = ReadonlyMap<number, readonly PageWord[]>;

/** A word with its page, in reading order of its line. */
interface Placed extends PageWord {
  page: number;
  line: number;
}

const centreY = (box: Box) => (box[1] + box[3]) / 2;
const height = (box: Box) => box[3] - box[1];
const union = (boxes: readonly Box[]): Box => [
  Math.min(...boxes.map((box) => box[0])),
  Math.min(...boxes.map((box) => box[1])),
  Math.max(...boxes.map((box) => box[2])),
  Math.max(...boxes.map((box) => box[3])),
];
const round = (value: number) => Math.round(value * 10_000) / 10_000;
const rounded = (box: Box): Box => box.map(round) as Box;

/**
 * A text layer often glues a label to its value ("Nr.471102", "VAT:DE123", "#RE-507"): such a word is split after the
 * label's colon, hash or abbreviation point, each part with its share of the box by characters.
 */
function splitGlued(word: PageWord): PageWord[] {
  const cut = /^(\p{L}[\p{L}-]*[.:#]|[:#]+)(?=[\p{L}\p{N}])/u.exec(word.text);
  if (!cut || cut[0].length >= word.text.length) return [word];
  const [left, top, right, bottom] = word.box;
  const at = left + ((right - left) * cut[0].length) / word.text.length;
  return [
    { text: cut[0], box: [left, top, at, bottom] },
    ...splitGlued({ text: word.text.slice(cut[0].length), box: [at, top, right, bottom] }),
  ];
}

/** A page's words grouped into lines (vertical centres within half a word's height), each line left to right. */
function linesOf(words: readonly PageWord[], page: number): Placed[][] {
  const sorted = words
    .flatMap(splitGlued)
    .filter((word) => word.text.trim() !== "")
    .sort((a, b) => centreY(a.box) - centreY(b.box) || a.box[0] - b.box[0]);
  const lines: Placed[][] = [];
  for (const word of sorted) {
    const last = lines[lines.length - 1];
    const lastWord = last?.[0];
    if (last && lastWord && Math.abs(centreY(lastWord.box) - centreY(word.box)) <= Math.max(height(lastWord.box), height(word.box)) / 2)
      last.push({ ...word, page, line: lines.length - 1 });
    else lines.push([{ ...word, page, line: lines.length }]);
  }
  for (const line of lines) line.sort((a, b) => a.box[0] - b.box[0]);
  return lines;
}

const fold = (text: string) => foldText(text).replace(/\s+/g, " ").trim();

/** The value as the field's type reads it, in the forms the engine gives (amounts `1234.50`, dates ISO); undefined when it does not read. */
export function readAs(field: Pick<SchemaField, "key" | "type">, text: string): string | undefined {
  const trimmed = text
    .trim()
    .replace(/^[:;#]+/, "")
    .replace(/[:;,]+$/, "");
  if (!trimmed) return undefined;
  if (field.type === "number") {
    // A currency code or symbol may stand before or after the amount; a word may not (it is the label).
    const bare = trimmed.replace(/^(?:[A-Z]{3}|[€$£])\s*/, "").replace(/\s*(?:[A-Z]{3}|K[čc]|[€$£]|,-)$/, "");
    const amount = /^-?\d/.test(bare) ? parseAmount(bare) : undefined;
    return amount === undefined ? undefined : formatAmount(amount);
  }
  if (field.type === "date") return normalizeDate(trimmed);
  if (/iban/.test(field.key)) return normalizeIban(trimmed) ?? undefined;
  // An identifier has a digit (a label never has one: "Nr.", "Invoice", "VAT-ID").
  if (/tax_id|register_id|variable_symbol|invoice_id/.test(field.key))
    return /\s{2,}/.test(trimmed) || !/\d/.test(trimmed) ? undefined : trimmed.replace(/\s+/g, "");
  return trimmed.replace(/\s+/g, " ");
}

/** Whether two texts are the same value of the field (as its type reads them). */
function sameValue(field: Pick<SchemaField, "key" | "type">, a: string, b: string): boolean {
  const left = readAs(field, a);
  return left !== undefined && left === readAs(field, b);
}

/** A word printed beside a value that is neither label nor value: a currency code or symbol, a colon, a hash. */
const apart = (text: string) => /^(?:[A-Z]{3}|[€$£]|K[čc]|[:;#.,-]+)$/u.test(text);

/** A word that can be part of a label: it has letters and no digits (a number, a date or an id is a value). */
const labelWord = (text: string) => /\p{L}/u.test(text) && !/\d/.test(text);

/**
 * The anchor of a value: the label words nearest before it on its line (however far: tables print labels at the left
 * margin and values in a column), else the label words just above it.
 */
function anchorOf(lines: Placed[][], value: { line: number; box: Box }): { text: string; box: Box } | undefined {
  const line = lines[value.line] ?? [];
  const before = line.filter((word) => word.box[2] <= value.box[0] + 0.002);
  // A currency or a colon between the label and the value ("Steuerbetrag in | EUR | 37,62", "IBAN | : | DE…") is no label.
  while (before.length && apart((before[before.length - 1] as Placed).text)) before.pop();
  const run: Placed[] = [];
  for (let index = before.length - 1; index >= 0 && run.length < 3; index--) {
    const word = before[index] as Placed;
    if (!labelWord(word.text)) break;
    const next = run[0]?.box;
    if (next && next[0] - word.box[2] > 2 * height(word.box)) break;
    run.unshift(word);
  }
  if (run.length) return { text: fold(run.map((word) => word.text).join(" ")), box: union(run.map((word) => word.box)) };
  // Above: the closest line over the value whose label words overlap it horizontally.
  for (let index = value.line - 1; index >= 0 && index >= value.line - 2; index--) {
    const over = (lines[index] ?? []).filter((word) => word.box[0] < value.box[2] + 0.01 && word.box[2] > value.box[0] - 0.01);
    if (over.length && over.every((word) => labelWord(word.text)))
      return { text: fold(over.map((word) => word.text).join(" ")), box: union(over.map((word) => word.box)) };
    if (over.length) break;
  }
  return undefined;
}

/**
 * The line a box stands on: of the lines with a word whose centre is within half its height (and `slack`) of the box's,
 * the nearest (a line of small print beside it may overlap it too).
 */
function nearestLine(lines: Placed[][], box: Box, slack: number): Placed[] | undefined {
  let best: { line: Placed[]; off: number } | undefined;
  for (const line of lines)
    for (const word of line) {
      const off = Math.abs(centreY(word.box) - centreY(box));
      if (off <= height(word.box) / 2 + slack && (!best || off < best.off)) best = { line, off };
    }
  return best?.line;
}

/** Where `value` is printed: the annotation's own position when it has one, else the first run of words that reads as it. */
function locate(
  field: SchemaField,
  annotation: Annotation,
  pages: PageWords,
): { page: number; line: number; box: Box; lines: Placed[][] } | undefined {
  const position = annotation.position;
  if (position) {
    const words = pages.get(position.page);
    if (!words) return undefined;
    const lines = linesOf(words, position.page);
    const box = position.box as Box;
    const nearest = nearestLine(lines, box, 0);
    return nearest ? { page: position.page, line: lines.indexOf(nearest), box, lines } : undefined;
  }
  for (const [page, words] of pages) {
    const lines = linesOf(words, page);
    for (const [lineIndex, line] of lines.entries())
      for (let start = 0; start < line.length; start++)
        for (let end = start + 1; end <= Math.min(line.length, start + 6); end++) {
          const run = line.slice(start, end);
          if (!sameValue(field, run.map((word) => word.text).join(" "), annotation.value)) continue;
          // The value's own words: a currency code or symbol printed apart from an amount, or a label's colon left
          // standing alone, is not part of its place.
          const own = run.filter((word) => !apart(word.text));
          const words = own.length && sameValue(field, own.map((word) => word.text).join(" "), annotation.value) ? own : run;
          return { page, line: lineIndex, box: union(words.map((word) => word.box)), lines };
        }
  }
  return undefined;
}

/**
 * The places of a validated document's fields: each field of the schema that is not a table and holds a value found on
 * the pages (by its position, or by its text). A field whose value the pages do not show has no place.
 */
export function placesOf(
  schema: readonly SchemaField[],
  annotations: readonly Annotation[],
  pages: PageWords,
): Omit<LayoutPlace, "confirmed" | "missed">[] {
  const places: Omit<LayoutPlace, "confirmed" | "missed">[] = [];
  for (const annotation of annotations) {
    const field = schema.find((candidate) => candidate.key === annotation.key);
    if (!field || field.type === "table" || annotation.value.trim() === "") continue;
    const found = locate(field, annotation, pages);
    if (!found) continue;
    const anchor = anchorOf(found.lines, found);
    places.push({
      fieldKey: field.key,
      page: found.page,
      anchor: anchor?.text ?? null,
      anchorBox: anchor ? rounded(anchor.box) : null,
      valueBox: rounded(found.box),
    });
  }
  return places;
}

/** Where the anchor's words stand on the page now: the occurrence closest to where they stood when learned. */
function findAnchor(lines: Placed[][], place: LayoutPlace): Box | undefined {
  const tokens = (place.anchor ?? "").split(" ");
  let best: { box: Box; distance: number } | undefined;
  for (const line of lines)
    for (let start = 0; start + tokens.length <= line.length; start++) {
      const run = line.slice(start, start + tokens.length);
      if (run.some((word, index) => fold(word.text) !== tokens[index])) continue;
      const box = union(run.map((word) => word.box));
      const learned = place.anchorBox as Box;
      const distance = Math.hypot(box[0] - learned[0], box[1] - learned[1]);
      if (!best || distance < best.distance) best = { box, distance };
    }
  // A label that moved across half the page is another label of the same words.
  return best && best.distance < 0.5 ? best.box : undefined;
}

/**
 * The value printed at a place: the words on the expected line starting where the value started, extended to the right
 * while they stay close; the longest run that the field's type reads.
 */
function readAt(field: SchemaField, lines: Placed[][], expected: Box): { value: string; box: Box } | undefined {
  const tolerance = Math.max(0.01, height(expected));
  const line = nearestLine(lines, expected, 0.002);
  if (!line) return undefined;
  // The word that starts where the value started (the nearest start within a word's height of it), not the label
  // that ends there.
  let start = -1;
  line.forEach((word, index) => {
    const off = Math.abs(word.box[0] - expected[0]);
    if (off <= tolerance && (start < 0 || off < Math.abs((line[start] as Placed).box[0] - expected[0]))) start = index;
  });
  if (start < 0) return undefined;
  const learnedWidth = expected[2] - expected[0];
  const run: Placed[] = [];
  for (const word of line.slice(start)) {
    const last = run[run.length - 1];
    if (last && word.box[0] - last.box[2] > 2.5 * height(word.box)) break;
    if (word.box[2] - expected[0] > 2 * learnedWidth + 0.05) break;
    run.push(word);
  }
  // Of the runs from the start that the field's type reads, the one closest in width to the value learned: the same
  // kind of value on the same layout prints about as wide (a name does not swallow the words after it).
  let best: { value: string; box: Box; misfit: number } | undefined;
  for (let end = 1; end <= run.length; end++) {
    const words = run.slice(0, end);
    const value = readAs(field, words.map((word) => word.text).join(" "));
    if (value === undefined) continue;
    const box = union(words.map((word) => word.box));
    const misfit = Math.abs(box[2] - box[0] - learnedWidth);
    if (!best || misfit < best.misfit - 0.002) best = { value, box, misfit };
  }
  return best && { value: best.value, box: best.box };
}

/** The probability that a value read from a place is right: the rule of succession over its validations. */
export function placeConfidence(place: Pick<LayoutPlace, "confirmed" | "missed">): number {
  return Math.round((100 * (place.confirmed + 1)) / (place.confirmed + place.missed + 2));
}

/** What the supplier's layout says each remembered field holds on this document's pages. */
export function readPlaces(schema: readonly SchemaField[], places: readonly LayoutPlace[], pages: PageWords): Annotation[] {
  const linesByPage = new Map([...pages].map(([page, words]) => [page, linesOf(words, page)]));
  // Where each anchor stands now; a place without an anchor moves as the page's anchors moved (the median shift), so
  // a header that grew a line moves the values printed under it too.
  const shifts = new Map<LayoutPlace, [number, number] | undefined>();
  for (const place of places) {
    const lines = linesByPage.get(place.page);
    if (!lines || !place.anchor || !place.anchorBox) continue;
    const anchor = findAnchor(lines, place);
    shifts.set(place, anchor && [anchor[0] - place.anchorBox[0], anchor[1] - place.anchorBox[1]]);
  }
  const found = [...shifts.values()].filter((shift): shift is [number, number] => shift !== undefined);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const pageShift: [number, number] = [median(found.map((shift) => shift[0])), median(found.map((shift) => shift[1]))];
  const read: Annotation[] = [];
  for (const place of places) {
    const field = schema.find((candidate) => candidate.key === place.fieldKey);
    const lines = linesByPage.get(place.page);
    if (!field || field.type === "table" || !lines) continue;
    // An anchor learned but not found now: the label is gone, and so is what it labelled.
    if (place.anchor && !shifts.get(place)) continue;
    const [dx, dy] = shifts.get(place) ?? pageShift;
    const box = place.valueBox;
    const value = readAt(field, lines, [box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy]);
    if (!value) continue;
    read.push({
      key: field.key,
      value: value.value,
      confidence: placeConfidence(place),
      source: LAYOUT_SOURCE,
      position: { page: place.page, box: rounded(value.box) },
    } as Annotation);
  }
  return read;
}

/** The source of a value read from the place the supplier's layout prints it. */
export const LAYOUT_SOURCE = "builtin:layout";
