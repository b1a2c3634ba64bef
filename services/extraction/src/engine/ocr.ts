import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { imageSize } from "image-size";
import type { TextItem } from "./page-text.js";

const run = promisify(execFile);

let available: Promise<string | undefined> | undefined;

/**
 * The languages pages are read in, those of them installed, in this order: Czech and English are required, German,
 * French, Slovak and Polish used where installed. With `ces+eng` a German scan's "Müller" came back "Můller" and
 * "GmbH & Co." as "GmbH 8. Co."; with Czech first still "Můller"; German first reads both right, and Czech words
 * keep their letters (tesseract takes each word's best reading across the list). The six cost about half as much
 * CPU again as `ces+eng` (1.54 s a page against 1.05 s, one thread) and 170 MB against 98 MB; Tesseract's
 * Latin-script model needs 280 MB (DECISIONS.md, bench/REPORT.md).
 */
export const OCR_LANGUAGES = ["deu", "eng", "fra", "ces", "slk", "pol"] as const;

function modelOf(langs: string): string | undefined {
  const installed = OCR_LANGUAGES.filter((language) => new RegExp(`^${language}$`, "m").test(langs));
  return installed.includes("ces") && installed.includes("eng") ? installed.join("+") : undefined;
}

/** The `-l` of tesseract's runs, when tesseract (with Czech and English) and `pdftoppm` are on PATH; asked once. */
function ocrModel(): Promise<string | undefined> {
  available ??= (async () => {
    try {
      const { stdout, stderr } = await run("tesseract", ["--list-langs"], { timeout: 5_000 });
      await run("pdftoppm", ["-v"], { timeout: 5_000 });
      return modelOf(`${stdout}\n${stderr}`);
    } catch {
      return undefined;
    }
  })();
  return available;
}

/** Whether OCR can run here: tesseract with Czech and English data and `pdftoppm` on PATH. */
export async function ocrAvailable(): Promise<boolean> {
  return (await ocrModel()) !== undefined;
}

/**
 * Parses tesseract's TSV output into words with boxes (pixels, y from the top). Each word takes its line's top and
 * height (tesseract's own line, level 4): a word's own box is as tall as its letters ("vom" is half as tall as
 * "Handelsrechnung", "GMBH" has no descenders), so gaps measured against it parted words of one phrase into columns
 * and split lines; the line's height is the text layer's notion of a word's height.
 */
export function wordsOfTsv(tsv: string, page: number): TextItem[] {
  const items: TextItem[] = [];
  const lines = new Map<string, { y: number; height: number }>();
  for (const row of tsv.split("\n").slice(1)) {
    const cells = row.split("\t");
    if (cells.length < 12) continue;
    const lineKey = cells.slice(1, 5).join(".");
    if (cells[0] === "4") lines.set(lineKey, { y: Number(cells[7]), height: Number(cells[9]) });
    if (cells[0] !== "5") continue;
    const text = (cells[11] ?? "").trim();
    const confidence = Number(cells[10]);
    if (!text || confidence < 10) continue;
    const line = lines.get(lineKey);
    items.push({
      text,
      x: Number(cells[6]),
      y: line?.y ?? Number(cells[7]),
      width: Number(cells[8]),
      height: line?.height ?? Number(cells[9]),
      page,
      confidence,
    });
  }
  return items;
}

/** Resolution pages are rasterized at for OCR, unless the page is so large that it would pass the pixel cap. */
export const OCR_DPI = 200;
/** Below this a page's text cannot be read anyway: a page that would need it is not rasterized at all. */
const MIN_OCR_DPI = 50;

/** A page's size in PDF points (1/72 inch), from the page's own box. */
export interface PageSize {
  width: number;
  height: number;
}

/** What a page is rasterized at: 200 dpi, or less where that would pass `maxPixels`; undefined when too large to read. */
export function ocrDpi(page: PageSize, maxPixels: number): number | undefined {
  const squareInches = (Math.abs(page.width) / 72) * (Math.abs(page.height) / 72);
  if (!(squareInches > 0)) return undefined;
  const dpi = Math.min(OCR_DPI, Math.floor(Math.sqrt(maxPixels / squareInches)));
  return dpi >= MIN_OCR_DPI ? dpi : undefined;
}

/** Thrown for a file OCR must not touch (pixels past the cap); its message is the user's. */
export class OcrRefusedError extends Error {}

/**
 * One thread per tesseract run, wherever the engine runs (a reader, the bench, a test): the pool runs readers side
 * by side, and OpenMP's threads on a small machine made a page take three times as long. In a reader the rest of
 * the environment is already its own (see pool.ts): no secret.
 */
const TESSERACT_ENV = { ...process.env, OMP_THREAD_LIMIT: "1" };

async function recognize(image: string, page: number, timeoutMs: number, scale = 1): Promise<TextItem[]> {
  const model = (await ocrModel()) ?? "ces+eng";
  const { stdout } = await run("tesseract", [image, "stdout", "-l", model, "--psm", "4", "tsv"], {
    env: TESSERACT_ENV,
    timeout: timeoutMs,
    maxBuffer: 16 * 1024 * 1024,
    killSignal: "SIGKILL",
  });
  // Boxes are pixels; a page rasterized below 200 dpi is scaled up so that the layout's thresholds stay alike.
  const words = wordsOfTsv(stdout, page);
  if (scale === 1) return words;
  return words.map((word) => ({ ...word, x: word.x * scale, y: word.y * scale, width: word.width * scale, height: word.height * scale }));
}

/** Width × height of an image from its header, before any decoder allocates for it; undefined when unknown. */
function imagePixels(bytes: Uint8Array): number | undefined {
  try {
    const { width, height } = imageSize(bytes);
    return width && height ? width * height : undefined;
  } catch {
    return undefined;
  }
}

export interface OcrOptions {
  maxPages: number;
  /** The first page OCRed (1 by default): one page of a PDF is OCRed alone for its words. */
  firstPage?: number;
  timeoutMs: number;
  /** Pixels one rasterized page or image may have (a 337-byte PDF can declare a page of square metres). */
  maxPixels: number;
  /** The PDF's page sizes, first page first (from its own boxes), so that each is rasterized within `maxPixels`. */
  pageSizes?: PageSize[];
  /** Called when the run's time ran out at page `page` after earlier pages were read: they are kept, the rest left. */
  onPagesLeft?: (page: number) => void;
  /** Called with each page rasterized from a PDF (a PNG file, removed afterwards), after its OCR: the payment QR hook. */
  onPageImage?: (image: string, page: number) => Promise<void>;
}

/**
 * OCRs an image, or the first `maxPages` pages of a PDF rasterized by pdftoppm, in a private temporary
 * directory that is removed afterwards. Each page is rasterized at a resolution that keeps it under the pixel cap,
 * an image over the cap is refused before tesseract decodes it, and each program is killed past its time. (The
 * reader process around this is killed with its whole process group at the pool's deadline, and its temporary
 * directory removed, so nothing started here outlives the file's budget.)
 */
export async function ocr(bytes: Uint8Array, kind: "pdf" | "image", options: OcrOptions): Promise<TextItem[]> {
  if (kind === "image") {
    const pixels = imagePixels(bytes);
    if (pixels === undefined) throw new OcrRefusedError("The image's size could not be read; it was not OCRed.");
    if (pixels > options.maxPixels)
      throw new OcrRefusedError(
        `The image has ${Math.round(pixels / 1e6)} million pixels, more than the ${Math.round(options.maxPixels / 1e6)} million OCR reads; it was not OCRed.`,
      );
  }
  const directory = await mkdtemp(path.join(os.tmpdir(), "docex-ocr-"));
  const started = Date.now();
  const remaining = () => Math.max(1_000, options.timeoutMs - (Date.now() - started));
  try {
    const input = path.join(directory, kind === "pdf" ? "input.pdf" : "input.img");
    await writeFile(input, bytes);
    if (kind === "image") return await recognize(input, 1, remaining());
    const items: TextItem[] = [];
    const sizes = options.pageSizes ?? [];
    for (let number = options.firstPage ?? 1; number <= Math.min(options.maxPages, sizes.length); number += 1) {
      const dpi = ocrDpi(sizes[number - 1] as PageSize, options.maxPixels);
      if (dpi === undefined) continue;
      const prefix = path.join(directory, `page-${number}`);
      const image = `${prefix}.png`;
      try {
        await run(
          "pdftoppm",
          ["-r", String(dpi), "-gray", "-png", "-singlefile", "-f", String(number), "-l", String(number), input, prefix],
          {
            timeout: remaining(),
            killSignal: "SIGKILL",
          },
        );
        items.push(...(await recognize(image, number, remaining(), OCR_DPI / dpi)));
      } catch (error) {
        // Out of time after some pages were read: what was read is kept, the pages after are left (the run's budget
        // bounds a long scan, not the pages it already gave).
        if ((error as { killed?: boolean }).killed && items.length > 0) {
          options.onPagesLeft?.(number);
          break;
        }
        throw error;
      }
      await options.onPageImage?.(image, number);
      await rm(image, { force: true });
    }
    return items;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
