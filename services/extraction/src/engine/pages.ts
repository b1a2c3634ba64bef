import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { imageSize } from "image-size";
import { sniffKind } from "./engine.js";
import { OCR_DPI, OcrRefusedError, ocr, ocrAvailable } from "./ocr.js";
import { MAX_LISTED_PAGES, wordsOf } from "./page-text.js";
import { openPdf } from "./pdf.js";
import { type ExtractionInput, type ExtractionLimits, type PageRead, type PageWord, UnreadableFileError } from "./types.js";

const run = promisify(execFile);

/** The widest image served (API.md: `?width=` at most 2000). */
export const MAX_IMAGE_WIDTH = 2_000;
/** A rendered page is at most this many times as tall as it is wide (a 1 × 10,000 pt strip is not drawn at 2000 px). */
export const MAX_ASPECT = 4;
/** Text-layer characters under which a PDF page is taken as scanned, as the engine does. */
const MIN_TEXT = 20;

/** An image's size in pixels from its header (no decoder allocates for it). */
export function imageDimensions(bytes: Uint8Array): { width: number; height: number } {
  try {
    const { width, height } = imageSize(bytes);
    if (width && height) return { width, height };
  } catch {
    // Answered below.
  }
  throw new UnreadableFileError("The image's size could not be read.");
}

/**
 * The pages of a file, in points (an image's pixels count as points: 72 dpi), without words: [] for a file that has
 * no page (an XML e-invoice, an archive).
 */
export async function listPages(input: ExtractionInput): Promise<PageRead[]> {
  const kind = sniffKind(input.bytes);
  if (kind === "image") return [{ page: 1, ...imageDimensions(input.bytes) }];
  if (kind !== "pdf") return [];
  const pdf = await openPdf(input.bytes);
  try {
    const sizes = await pdf.pageSizes(Math.min(pdf.pages, MAX_LISTED_PAGES));
    return sizes.map((size, index) => ({ page: index + 1, width: size.width, height: size.height }));
  } finally {
    await pdf.close().catch(() => undefined);
  }
}

/** OCR's words of one page (an image's only page, or a PDF's page rasterized at OCR's resolution). */
async function ocrWords(input: ExtractionInput, kind: "pdf" | "image", page: number, size: PageRead, limits: ExtractionLimits) {
  if (!limits.ocr || !(await ocrAvailable())) return [];
  const pixels = kind === "image" ? size : { width: (size.width * OCR_DPI) / 72, height: (size.height * OCR_DPI) / 72 };
  const sizes: { width: number; height: number }[] = [];
  sizes[page - 1] = kind === "image" ? size : { width: size.width, height: size.height };
  try {
    const items = await ocr(input.bytes, kind, {
      maxPages: page,
      firstPage: page,
      timeoutMs: limits.ocrTimeoutMs,
      maxPixels: limits.maxOcrPixels,
      pageSizes: sizes,
    });
    const scaled: { width: number; height: number }[] = [];
    scaled[page - 1] = pixels;
    return wordsOf(items, scaled).get(page) ?? [];
  } catch (error) {
    if (error instanceof OcrRefusedError) throw new UnreadableFileError(error.message);
    throw error;
  }
}

/**
 * The words of one page: the PDF's text layer, or OCR where the page has none (a scan, an image). A page past the
 * last is refused by the caller, which knows the page list.
 */
export async function readPageWords(input: ExtractionInput, page: number, limits: ExtractionLimits): Promise<PageWord[]> {
  const kind = sniffKind(input.bytes);
  if (kind === "image") return ocrWords(input, "image", 1, { page: 1, ...imageDimensions(input.bytes) }, limits);
  if (kind !== "pdf") return [];
  const pdf = await openPdf(input.bytes);
  let size: PageRead;
  try {
    if (page > pdf.pages) return [];
    const items = await pdf.text(page, page);
    const [measured] = await pdf.pageSizes(page, page);
    if (!measured) return [];
    size = { page, ...measured };
    const textLength = items.reduce((total, item) => total + item.text.trim().length, 0);
    if (textLength >= MIN_TEXT) {
      const sizes: { width: number; height: number }[] = [];
      sizes[page - 1] = measured;
      return wordsOf(items, sizes).get(page) ?? [];
    }
  } finally {
    await pdf.close().catch(() => undefined);
  }
  return ocrWords(input, "pdf", page, size, limits);
}

export interface RenderedPage {
  contentType: "image/png";
  bytes: Uint8Array;
  width: number;
  height: number;
}

/**
 * One page as a PNG `width` pixels wide (narrower where the page is more than MAX_ASPECT times as tall as wide):
 * a PDF page drawn by pdftoppm (poppler) at the resolution that gives that width, an image scaled by sharp (libvips)
 * with its pixel count checked from the header first. Runs in a capped reader (pool.ts): pdftoppm inherits its
 * memory cap and dies with its process group at the deadline.
 */
export async function renderPage(input: ExtractionInput, page: number, width: number, timeoutMs: number): Promise<RenderedPage> {
  const kind = sniffKind(input.bytes);
  if (kind === "image") return renderImage(input.bytes, width);
  if (kind !== "pdf") throw new UnreadableFileError("The file has no pages to show.");
  const pdf = await openPdf(input.bytes);
  let size: { width: number; height: number } | undefined;
  try {
    [size] = page <= pdf.pages ? await pdf.pageSizes(page, page) : [];
  } finally {
    await pdf.close().catch(() => undefined);
  }
  if (!size || !(size.width > 0) || !(size.height > 0)) throw new UnreadableFileError("The page has no size.");
  const target = fitted(size, width);
  const directory = await mkdtemp(path.join(os.tmpdir(), "docex-page-"));
  try {
    const file = path.join(directory, "input.pdf");
    await writeFile(file, input.bytes);
    const prefix = path.join(directory, "page");
    await run(
      "pdftoppm",
      [
        "-scale-to-x",
        String(target.width),
        "-scale-to-y",
        String(target.height),
        "-f",
        String(page),
        "-l",
        String(page),
        "-png",
        "-singlefile",
        file,
        prefix,
      ],
      { timeout: timeoutMs, killSignal: "SIGKILL" },
    );
    const bytes = new Uint8Array(await readFile(`${prefix}.png`));
    const drawn = imageDimensions(bytes);
    return { contentType: "image/png", bytes, width: drawn.width, height: drawn.height };
  } catch (error) {
    if ((error as { killed?: boolean }).killed) throw new UnreadableFileError("Drawing the page took too long; it was stopped.");
    if (error instanceof UnreadableFileError) throw error;
    throw new UnreadableFileError("The page could not be drawn.");
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** The size an image of a page is drawn at: `width` wide, or narrower so that it is at most MAX_ASPECT × width tall. */
function fitted(size: { width: number; height: number }, width: number): { width: number; height: number } {
  const maxHeight = width * MAX_ASPECT;
  const scale = Math.min(width / size.width, maxHeight / size.height);
  return { width: Math.max(1, Math.round(size.width * scale)), height: Math.max(1, Math.round(size.height * scale)) };
}

/** Pixels an uploaded image may have to be scaled for showing (the OCR cap's order: a 300 dpi A3 scan is 17 million). */
const MAX_SOURCE_PIXELS = 50_000_000;

async function renderImage(bytes: Uint8Array, width: number): Promise<RenderedPage> {
  const source = imageDimensions(bytes);
  if (source.width * source.height > MAX_SOURCE_PIXELS)
    throw new UnreadableFileError(
      `The image has ${Math.round((source.width * source.height) / 1e6)} million pixels, more than the ${MAX_SOURCE_PIXELS / 1e6} million shown.`,
    );
  const target = fitted(source, width);
  // Loaded here only: the readers that never draw an image do not hold libvips.
  const { default: sharp } = await import("sharp");
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_SOURCE_PIXELS, failOn: "error" })
      .resize(target.width, target.height, { fit: "fill" })
      .png({ compressionLevel: 6 })
      .toBuffer({ resolveWithObject: true });
    return { contentType: "image/png", bytes: new Uint8Array(data), width: info.width, height: info.height };
  } catch {
    throw new UnreadableFileError("The image could not be drawn.");
  }
}
