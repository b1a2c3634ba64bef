import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { imageSize } from "image-size";
import { prepareZXingModule, readBarcodes } from "zxing-wasm/reader";
import type { PageSize } from "./ocr.js";
import type { TextItem } from "./page-text.js";
import { parsePayBySquare } from "./pay-by-square.js";
import type { PaymentQr } from "./payment-qr.js";
import { parseSpayd } from "./spayd.js";
import type { ExtractedField, ExtractionMessage, ExtractionResult, FieldPosition, InvoiceFieldKey } from "./types.js";
import { czechAccountOfIban } from "./validators.js";

/**
 * Payment QR codes on an invoice's page (issue 36, item 4): Czech "QR Platba" (SPAYD) and Slovak "PAY by square",
 * found by ZXing-C++ (zxing-wasm, its wasm loaded from the package, never fetched) and read into IBAN, amount,
 * currency, variable symbol and due date. Where to look and what it costs: DECISIONS.md, "Payment QR codes".
 */

const run = promisify(execFile);
const require = createRequire(import.meta.url);

let reader: Promise<unknown> | undefined;

/** Loads and compiles the reader's wasm once per process (about 20 ms); readers do it before their memory cap. */
export function prepareQrReader(): Promise<unknown> {
  reader ??= readFile(require.resolve("zxing-wasm/reader/zxing_reader.wasm")).then((wasm) =>
    prepareZXingModule({
      overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer },
      fireImmediately: true,
    }),
  );
  return reader;
}

/** A payment QR code found on a page, and where. */
export interface FoundPaymentQr {
  qr: PaymentQr;
  position?: FieldPosition;
}

/**
 * The first payment QR code in an image (PNG, JPEG, or the PGM pdftoppm writes), with its box as fractions of the
 * image. Codes that are not payments (a web link, garbage, a hostile payload) are passed over.
 */
export async function paymentQrInImage(image: Uint8Array, page: number): Promise<FoundPaymentQr | undefined> {
  await prepareQrReader();
  let codes: Awaited<ReturnType<typeof readBarcodes>>;
  try {
    codes = await readBarcodes(image, { formats: ["QRCode"], tryHarder: true, maxNumberOfSymbols: 4 });
  } catch {
    // An image format the reader does not decode (TIFF), or a damaged one: no code is read from it.
    return undefined;
  }
  let size: { width?: number; height?: number } = {};
  try {
    size = imageSize(image);
  } catch {
    // Position is then left out; the values stand.
  }
  for (const code of codes) {
    if (!code.isValid) continue;
    const qr = parseSpayd(code.text) ?? parsePayBySquare(code.text);
    if (!qr) continue;
    const { width, height } = size;
    if (!width || !height) return { qr };
    const corners = [code.position.topLeft, code.position.topRight, code.position.bottomRight, code.position.bottomLeft];
    const xs = corners.map((point) => point.x / width);
    const ys = corners.map((point) => point.y / height);
    return { qr, position: { page, box: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)] } };
  }
  return undefined;
}

/** Resolution a text PDF's page is rendered at to look for a code: its modules (≥ 0.4 mm) get 2–3 pixels. */
const QR_DPI = 150;
const MIN_QR_DPI = 72;

export interface QrRenderOptions {
  timeoutMs: number;
  maxPixels: number;
}

/**
 * Renders one page of a PDF in grey by pdftoppm, as PGM on its stdout (PNG's encoding cost four times the rendering),
 * in a private temporary directory, and looks for a payment code in it. Undefined when the page is too large, the
 * renderer fails or overruns, or no code is there.
 */
export async function paymentQrOnPdfPage(
  pdf: Uint8Array,
  page: number,
  size: PageSize,
  options: QrRenderOptions,
): Promise<FoundPaymentQr | undefined> {
  const squareInches = (Math.abs(size.width) / 72) * (Math.abs(size.height) / 72);
  if (!(squareInches > 0)) return undefined;
  const dpi = Math.min(QR_DPI, Math.floor(Math.sqrt(options.maxPixels / squareInches)));
  if (dpi < MIN_QR_DPI) return undefined;
  const directory = await mkdtemp(path.join(os.tmpdir(), "docex-qr-"));
  let pgm: Buffer;
  try {
    const input = path.join(directory, "input.pdf");
    await writeFile(input, pdf);
    ({ stdout: pgm } = await run("pdftoppm", ["-r", String(dpi), "-gray", "-singlefile", "-f", String(page), "-l", String(page), input], {
      encoding: "buffer",
      timeout: options.timeoutMs,
      killSignal: "SIGKILL",
      maxBuffer: options.maxPixels + 1024,
    }));
  } catch {
    return undefined;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
  return paymentQrInImage(new Uint8Array(pgm.buffer, pgm.byteOffset, pgm.byteLength), page);
}

/** Words that name a payment code: "QR Platba", "QR kód", "PAY by square", "Zaplaťte QR kódem"… */
const QR_WORDS = /\bQR[\s-]?(?:platb|k[oó]d|code)|pay\s*by\s*square|zapla[tť]\s*te\s+(?:pomoc[ií]\s+)?QR/i;
/** Czech or Slovak payment details: where a QR Platba or PAY by square code would be printed. */
const CZ_SK_PAYMENT = /\b(?:CZ|SK)\d{2}(?:\s?\d{4}){5}\b|\b\d{5,10}\/\d{4}\b|\bCZK\b|Kč/;

/**
 * The page of a text PDF worth rendering for a payment code, or none: the first page naming one, else the first
 * page with Czech or Slovak payment details (QR Platba's logo is often an image, so its name is not always text).
 * Other invoices are not rendered: the cost is the renderer's, 20–40 ms a page.
 */
export function pageToSearchForQr(items: TextItem[]): number | undefined {
  const pages = new Map<number, string>();
  for (const item of items) pages.set(item.page, `${pages.get(item.page) ?? ""} ${item.text}`);
  const ordered = [...pages].sort(([a], [b]) => a - b);
  return ordered.find(([, text]) => QR_WORDS.test(text))?.[0] ?? ordered.find(([, text]) => CZ_SK_PAYMENT.test(text))?.[0];
}

/**
 * Confidence of a value read from a payment code. A QR symbol is only answered when its Reed–Solomon error correction
 * succeeded, the IBAN passed mod-97, and the payload's CRC32 (PAY by square always, SPAYD when it has one) held: what
 * is left is not a misread but a code that says something else than the page, which the comparison below catches.
 */
const CHECKSUMMED = 99;
const UNCHECKSUMMED = 97;
/** A value the code and the page disagree on: one of them is wrong, and a person must say which. */
const CONTRADICTED = 50;

const COMPARED: { key: InvoiceFieldKey; label: string; of: (qr: PaymentQr) => string | undefined }[] = [
  { key: "iban", label: "IBAN", of: (qr) => qr.ibans[0] },
  { key: "total_due", label: "amount", of: (qr) => qr.amount },
  { key: "currency", label: "currency", of: (qr) => qr.currency },
  { key: "variable_symbol", label: "variable symbol", of: (qr) => qr.variableSymbol },
  { key: "due_date", label: "due date", of: (qr) => qr.dueDate },
];

function agrees(key: InvoiceFieldKey, printed: string, qr: PaymentQr, value: string): boolean {
  if (key === "iban") return qr.ibans.includes(printed.replace(/\s+/g, "").toUpperCase());
  // A variable symbol's leading zeros are not part of it (banks drop them).
  if (key === "variable_symbol") return printed.replace(/^0+/, "") === value.replace(/^0+/, "");
  if (key === "total_due") return Number(printed) === Number(value);
  return printed === value;
}

/**
 * The result with a payment code's values: an empty field is filled from the code (`builtin:qr`); a printed value the
 * code confirms keeps its place on the page and gains the code's confidence; a printed value the code contradicts is
 * replaced by the code's (read exactly, and what a bank app will pay) at a confidence that keeps the document for a
 * person, with a warning naming both.
 */
export function withPaymentQr(result: ExtractionResult, found: FoundPaymentQr): ExtractionResult {
  const { qr, position } = found;
  const confidence = qr.checksummed ? CHECKSUMMED : UNCHECKSUMMED;
  const fields = { ...result.fields };
  const messages: ExtractionMessage[] = [];
  const fromQr = (value: string, at = confidence): ExtractedField => ({
    value,
    confidence: at,
    source: "builtin:qr",
    ...(position ? { position } : {}),
  });
  for (const { key, label, of } of COMPARED) {
    const value = of(qr);
    if (value === undefined) continue;
    const printed = fields[key];
    if (!printed) fields[key] = fromQr(value);
    else if (agrees(key, printed.value, qr, value)) fields[key] = { ...printed, confidence: Math.max(printed.confidence, confidence) };
    else {
      fields[key] = fromQr(value, CONTRADICTED);
      messages.push({
        key,
        message: `The payment QR code says ${label} ${value} but the invoice prints ${printed.value}; the QR code's value was taken. Check which one is right.`,
        severity: "warning",
      });
    }
  }
  const account = fields.iban?.source === "builtin:qr" ? czechAccountOfIban(fields.iban.value) : undefined;
  if (account && !fields.bank_account) fields.bank_account = fromQr(account, fields.iban?.confidence);
  return { ...result, fields, messages: [...result.messages, ...messages] };
}
