import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { extractInvoice } from "./engine.js";
import { listPages, type RenderedPage, readPageWords, renderPage } from "./pages.js";
import { prepareQrReader } from "./qr.js";
import {
  type ExtractionInput,
  type ExtractionLimits,
  type ExtractionResult,
  type PageRead,
  type PageWord,
  UnreadableFileError,
} from "./types.js";

/**
 * A reading process of the pool (see pool.ts): one task per message (an extraction, a file's pages, a page's words or
 * image). It caps its own memory before it takes
 * any file, so that a decompression bomb ends here, in this process, and never in the service.
 */

/** What a reader is asked to do with a file: read the invoice, list its pages, read a page's words, draw a page. */
export type ReaderTask =
  | { kind: "extract"; input: ExtractionInput; limits: ExtractionLimits }
  | { kind: "pages"; input: ExtractionInput }
  | { kind: "words"; input: ExtractionInput; page: number; limits: ExtractionLimits }
  | { kind: "render"; input: ExtractionInput; page: number; width: number; timeoutMs: number };

/** The answer of each kind of task. */
export interface ReaderResults {
  extract: ExtractionResult;
  pages: PageRead[];
  words: PageWord[];
  render: RenderedPage;
}

export interface ReaderJob {
  id: number;
  task: ReaderTask;
}

export type ReaderReply =
  | { ready: true; capped: boolean }
  | { id: number; result: ReaderResults[ReaderTask["kind"]] }
  /** `unreadable`: the file cannot be used for this (its message is the user's), not a failure of the reader. */
  | { id: number; error: string; unreadable?: boolean };

function perform(task: ReaderTask): Promise<ReaderResults[ReaderTask["kind"]]> {
  switch (task.kind) {
    case "extract":
      return extractInvoice(task.input, task.limits);
    case "pages":
      return listPages(task.input);
    case "words":
      return readPageWords(task.input, task.page, task.limits);
    case "render":
      return renderPage(task.input, task.page, task.width, task.timeoutMs);
  }
}

/** The process's data segment in bytes (the size RLIMIT_DATA bounds): heap, array buffers, malloc. */
function dataBytes(): number | undefined {
  try {
    const kilobytes = /^VmData:\s+(\d+)\s+kB/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    return kilobytes === undefined ? undefined : Number(kilobytes) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * RLIMIT_DATA = what this process holds now (code and heap reservations of V8, pdf.js loaded) + the cap. Set from
 * here, once the runtime has started, because V8 reserves hundreds of MiB at start that a limit set before exec
 * would have to guess. Inherited by the OCR programs this process runs. False where it cannot be set (no
 * `prlimit`, no /proc): the pool's watchdog is then the only bound.
 */
function capMemory(capBytes: number): boolean {
  const held = dataBytes();
  if (held === undefined || !Number.isFinite(capBytes) || capBytes <= 0) return false;
  try {
    execFileSync("prlimit", [`--pid=${process.pid}`, `--data=${held + capBytes}`], { stdio: "ignore", timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}

const send = (reply: ReaderReply) => process.send?.(reply);

/**
 * One page with a line of text, read once before the cap is set and the reader says it is ready: pdf.js's worker
 * code is loaded and its first-use compilation done, so that neither the cap nor the pool's watchdog counts them
 * against the first file.
 */
const WARM_UP_PDF = [
  "%PDF-1.4",
  "1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj",
  "2 0 obj <</Type/Pages/Kids[3 0 R]/Count 1>> endobj",
  "3 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 300 200]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>> endobj",
  "4 0 obj <</Length 58>> stream",
  "BT /F1 10 Tf 20 100 Td (Invoice 2026-001 total 100.00 EUR) Tj ET",
  "endstream endobj",
  "5 0 obj <</Type/Font/Subtype/Type1/BaseFont/Helvetica>> endobj",
  "trailer <</Root 1 0 R>>",
  "%%EOF",
].join("\n");

await extractInvoice({ bytes: new TextEncoder().encode(WARM_UP_PDF) }).catch(() => undefined);
// The QR reader's wasm is compiled and its first memory taken before the cap, like pdf.js's worker code.
await prepareQrReader().catch(() => undefined);
const capped = capMemory(Number(process.env.DOCEX_READER_MEMORY_BYTES));
// The service went away (killed, or the pool closed): nothing is left to read for.
process.on("disconnect", () => process.exit(0));
process.on("message", async (job: ReaderJob) => {
  try {
    send({ id: job.id, result: await perform(job.task) });
  } catch (error) {
    if (error instanceof UnreadableFileError) send({ id: job.id, error: error.message, unreadable: true });
    else send({ id: job.id, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  }
});
send({ ready: true, capped });
