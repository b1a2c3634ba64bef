import type { PageWord } from "./types.js";

/** A piece of text on a page with its box; y grows downwards, units are the page's (points or pixels). */
export interface TextItem {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
  page: number;
  /** OCR only: the recognizer's confidence in the word, 0–100. */
  confidence?: number;
}

/** Text items that belong together: close on one line. A label and its value are usually separate segments. */
export interface Segment {
  text: string;
  x: number;
  xEnd: number;
  y: number;
  height: number;
  page: number;
  /** OCR only: the lowest word confidence among the segment's words, 0–100. */
  wordConfidence?: number;
}

export interface Line {
  y: number;
  page: number;
  segments: Segment[];
}

/** Widest gap between two OCR words of one segment, in line heights (a column gap on an invoice is several). */
const OCR_JOIN_GAP = 1.5;

/**
 * Groups items into lines (vertical centres within half a line height) and each line into segments
 * (horizontal gaps under about one character height join; wider gaps separate columns).
 */
export function linesOf(items: TextItem[]): Line[] {
  const visible = items.filter((item) => item.text.trim() !== "" && item.height > 0);
  const sorted = [...visible].sort((a, b) => a.page - b.page || a.y + a.height / 2 - (b.y + b.height / 2) || a.x - b.x);
  const lines: { page: number; centre: number; height: number; items: TextItem[] }[] = [];
  for (const item of sorted) {
    const centre = item.y + item.height / 2;
    const last = lines[lines.length - 1];
    if (last && last.page === item.page && Math.abs(last.centre - centre) <= Math.max(last.height, item.height) * 0.5) {
      last.items.push(item);
    } else {
      lines.push({ page: item.page, centre, height: item.height, items: [item] });
    }
  }
  return lines.map((line) => {
    const ordered = line.items.sort((a, b) => a.x - b.x);
    const segments: Segment[] = [];
    let forceBreak = false;
    for (const item of ordered) {
      // OCR reads table rules as "|": a column boundary, never text.
      if (/^[|¦]+$/.test(item.text.trim())) {
        forceBreak = true;
        continue;
      }
      const last = segments[segments.length - 1];
      const gap = last ? item.x - last.xEnd : Number.POSITIVE_INFINITY;
      // OCR boxes hug the ink and take their line's height (ocr.ts), so a space between two words measures wider
      // than between text-layer runs, whose boxes include each glyph's advance.
      const joinGap = Math.max(item.height, last?.height ?? 0) * (item.confidence === undefined ? 0.8 : OCR_JOIN_GAP);
      if (last && gap < joinGap && !forceBreak) {
        // Tesseract parts words at spaces: two OCR words always had one between them.
        const spaced = item.confidence !== undefined || gap > item.height * 0.15;
        last.text = `${last.text}${spaced && !last.text.endsWith(" ") ? " " : ""}${item.text}`.replace(/\s+/g, " ");
        last.xEnd = Math.max(last.xEnd, item.x + item.width);
        if (item.confidence !== undefined) last.wordConfidence = Math.min(last.wordConfidence ?? 100, item.confidence);
      } else {
        segments.push({
          text: item.text.replace(/\s+/g, " ").trim(),
          x: item.x,
          xEnd: item.x + item.width,
          y: line.centre,
          height: item.height,
          page: item.page,
          ...(item.confidence !== undefined ? { wordConfidence: item.confidence } : {}),
        });
      }
      forceBreak = false;
    }
    for (const segment of segments) segment.text = segment.text.trim();
    return { y: line.centre, page: line.page, segments };
  });
}

/** Pages a document lists and serves; a longer PDF's later pages are not shown (an invoice has a few). */
export const MAX_LISTED_PAGES = 200;
/** Words kept of one page: a page with more is not an invoice page anyone reads by clicking. */
export const MAX_WORDS_PER_PAGE = 5_000;
const round = (value: number) => Math.round(Math.min(1, Math.max(0, value)) * 10_000) / 10_000;

/**
 * The words of text items as the API shows them: each item (pdf.js gives runs of several words, tesseract single
 * words) split at white space, each word's share of the item's box by its characters, as fractions of its page from
 * the top-left corner: the coordinates of the engine's `position` (text-fields.ts's positionOf).
 * `sizes[page - 1]` is the page's size in the items' units (points for the text layer, pixels for OCR).
 */
export function wordsOf(items: TextItem[], sizes: { width: number; height: number }[]): Map<number, PageWord[]> {
  const pages = new Map<number, PageWord[]>();
  for (const item of items) {
    const size = sizes[item.page - 1];
    if (!size || size.width <= 0 || size.height <= 0 || item.text.length === 0) continue;
    const words = pages.get(item.page) ?? [];
    if (words.length >= MAX_WORDS_PER_PAGE) continue;
    const share = item.width / item.text.length;
    for (const match of item.text.matchAll(/\S+/g)) {
      const start = match.index ?? 0;
      const left = item.x + share * start;
      const right = left + share * match[0].length;
      words.push({
        text: match[0],
        box: [
          round(left / size.width),
          round(item.y / size.height),
          round(right / size.width),
          round((item.y + item.height) / size.height),
        ],
      });
    }
    pages.set(item.page, words.slice(0, MAX_WORDS_PER_PAGE));
  }
  return pages;
}
