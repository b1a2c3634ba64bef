import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { TextItem } from "./page-text.js";

const run = promisify(execFile);

let available: Promise<boolean> | undefined;

/** Whether `tesseract` (with Czech and English data) and `pdftoppm` are on PATH; asked once per process. */
export function ocrAvailable(): Promise<boolean> {
  available ??= (async () => {
    try {
      const { stdout, stderr } = await run("tesseract", ["--list-langs"], { timeout: 5_000 });
      const langs = `${stdout}\n${stderr}`;
      await run("pdftoppm", ["-v"], { timeout: 5_000 });
      return /^ces$/m.test(langs) && /^eng$/m.test(langs);
    } catch {
      return false;
    }
  })();
  return available;
}

/** Parses tesseract's TSV output into words with boxes (pixels, y from the top). */
export function wordsOfTsv(tsv: string, page: number): TextItem[] {
  const items: TextItem[] = [];
  for (const row of tsv.split("\n").slice(1)) {
    const cells = row.split("\t");
    if (cells.length < 12 || cells[0] !== "5") continue;
    const text = (cells[11] ?? "").trim();
    const confidence = Number(cells[10]);
    if (!text || confidence < 10) continue;
    items.push({
      text,
      x: Number(cells[6]),
      y: Number(cells[7]),
      width: Number(cells[8]),
      height: Number(cells[9]),
      page,
    });
  }
  return items;
}

// One thread per tesseract run: the worker pool already runs several extractions side by side.
const TESSERACT_ENV = { ...process.env, OMP_THREAD_LIMIT: "1" };

async function recognize(image: string, page: number, timeoutMs: number): Promise<TextItem[]> {
  const { stdout } = await run("tesseract", [image, "stdout", "-l", "ces+eng", "--psm", "4", "tsv"], {
    timeout: timeoutMs,
    maxBuffer: 16 * 1024 * 1024,
    env: TESSERACT_ENV,
  });
  // Tesseract's boxes are pixels; scale them to the same order as a PDF's points so thresholds stay alike.
  return wordsOfTsv(stdout, page);
}

/**
 * OCRs an image, or the first `maxPages` pages of a PDF rasterized by pdftoppm, in a private temporary
 * directory that is removed afterwards. Each program runs with a timeout and is killed past it.
 */
export async function ocr(bytes: Uint8Array, kind: "pdf" | "image", options: { maxPages: number; timeoutMs: number }): Promise<TextItem[]> {
  const directory = await mkdtemp(path.join(os.tmpdir(), "docex-ocr-"));
  const started = Date.now();
  const remaining = () => Math.max(1_000, options.timeoutMs - (Date.now() - started));
  try {
    const input = path.join(directory, kind === "pdf" ? "input.pdf" : "input.img");
    await writeFile(input, bytes);
    if (kind === "image") return await recognize(input, 1, remaining());
    await run("pdftoppm", ["-r", "200", "-gray", "-png", "-f", "1", "-l", String(options.maxPages), input, path.join(directory, "page")], {
      timeout: remaining(),
    });
    const pages = (await readdir(directory)).filter((file) => /^page-\d+\.png$/.test(file)).sort();
    const items: TextItem[] = [];
    for (const [index, file] of pages.entries()) items.push(...(await recognize(path.join(directory, file), index + 1, remaining())));
    return items;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
