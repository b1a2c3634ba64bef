import { readFile } from "node:fs/promises";
import { withholdUnsure } from "./confidence.js";
import { readEinvoice } from "./einvoice.js";
import { isdocOfIsdocx } from "./isdocx.js";
import { OCR_DPI, OcrRefusedError, ocr, ocrAvailable, type PageSize } from "./ocr.js";
import { linesOf, MAX_LISTED_PAGES, type TextItem, wordsOf } from "./page-text.js";
import { imageDimensions } from "./pages.js";
import { openPdf } from "./pdf.js";
import { readAttachments } from "./pdf-attachments.js";
import { type FoundPaymentQr, pageToSearchForQr, paymentQrInImage, paymentQrOnPdfPage, withPaymentQr } from "./qr.js";
import { fieldsFromLines, type PageSizes } from "./text-fields.js";
import {
  DEFAULT_LIMITS,
  type ExtractionInput,
  type ExtractionLimits,
  type ExtractionMessage,
  type ExtractionResult,
  type PageRead,
  UnreadableFileError,
} from "./types.js";
import { parseXml } from "./xml.js";

export type FileKind = "pdf" | "zip" | "xml" | "image" | "unknown";

/** What the bytes are, from their magic numbers; the uploader's content type is not trusted. */
export function sniffKind(bytes: Uint8Array): FileKind {
  const head = Buffer.from(bytes.subarray(0, 1024));
  if (head.indexOf("%PDF-") >= 0 && head.indexOf("%PDF-") < 1024) return "pdf";
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) return "zip";
  if (head[0] === 0x89 && head.subarray(1, 4).toString("latin1") === "PNG") return "image";
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image";
  if (
    head.subarray(0, 4).equals(Buffer.from([0x49, 0x49, 0x2a, 0x00])) ||
    head.subarray(0, 4).equals(Buffer.from([0x4d, 0x4d, 0x00, 0x2a]))
  )
    return "image";
  const start = head
    .toString("utf8")
    .replace(/^\uFEFF/, "")
    .trimStart();
  if (start.startsWith("<")) return "xml";
  return "unknown";
}

function unreadable(message: string, severity: ExtractionMessage["severity"] = "warning"): ExtractionResult {
  return { format: "unreadable", fields: {}, messages: [{ key: null, message, severity }] };
}

const NO_TEXT = "No text could be read from this document (it has no text layer and OCR is not installed); fill the fields by hand.";

async function fromWords(
  items: TextItem[],
  source: "builtin:pdf_text" | "builtin:ocr",
  pageSizes: PageSizes = [],
): Promise<ExtractionResult> {
  return fieldsFromLines(linesOf(items), source, pageSizes);
}

/**
 * The pages of a file (`sizes`, in points) with the words of those whose `items` were read; `units` are the items'
 * page sizes (points for the text layer, pixels for OCR), so that words share the fractions of `position`.
 */
function pagesOf(sizes: PageSize[], items: TextItem[] | undefined, units: PageSize[], readPages: number): PageRead[] {
  const words = items ? wordsOf(items, units) : undefined;
  return sizes.map((size, index) => ({
    page: index + 1,
    width: size.width,
    height: size.height,
    ...(words && index < readPages ? { words: words.get(index + 1) ?? [] } : {}),
  }));
}

/** OCR's unit: a PDF page rasterized at OCR_DPI (boxes of pages drawn below it are scaled to it), an image's pixels. */
const ocrPixels = (size: PageSize): PageSize => ({ width: (size.width * OCR_DPI) / 72, height: (size.height * OCR_DPI) / 72 });

async function fromOcr(
  bytes: Uint8Array,
  kind: "pdf" | "image",
  limits: ExtractionLimits,
  pageSizes: PageSize[] = [],
): Promise<ExtractionResult> {
  if (!limits.ocr || !(await ocrAvailable())) return unreadable(NO_TEXT, "info");
  if (limits.deferOcr) return { format: "ocr", fields: {}, messages: [], needsOcr: true };
  let items: TextItem[];
  // The payment QR code is looked for in the pages OCR rasterizes anyway (a PDF's), or in the image itself.
  let found: FoundPaymentQr | undefined;
  let leftFrom: number | undefined;
  const lookForQr = limits.paymentQr !== false;
  try {
    items = await ocr(bytes, kind, {
      onPagesLeft: (page) => {
        leftFrom = page;
      },
      maxPages: limits.maxOcrPages,
      timeoutMs: limits.ocrTimeoutMs,
      maxPixels: limits.maxOcrPixels,
      pageSizes,
      ...(lookForQr
        ? {
            onPageImage: async (image: string, page: number) => {
              found ??= await paymentQrInImage(new Uint8Array(await readFile(image)), page);
            },
          }
        : {}),
    });
  } catch (error) {
    if (error instanceof OcrRefusedError) return unreadable(error.message);
    const killed = (error as { killed?: boolean }).killed;
    return unreadable(killed ? "OCR took too long and was stopped; fill the fields by hand." : "OCR could not read this file.");
  }
  const sizes = kind === "image" ? [imageDimensions(bytes)] : pageSizes;
  const units = kind === "image" ? sizes : sizes.map(ocrPixels);
  const pages = pagesOf(sizes, items, units, kind === "image" ? 1 : limits.maxOcrPages);
  if (lookForQr && kind === "image") found = await paymentQrInImage(bytes, 1);
  const read =
    items.length === 0 ? unreadable("OCR found no text in this document.", "info") : await fromWords(items, "builtin:ocr", units);
  const result = found ? withPaymentQr(read, found) : read;
  if (leftFrom !== undefined)
    result.messages = [
      ...result.messages,
      { key: null, message: `OCR ran out of time at page ${leftFrom}; the pages from there on were not read.`, severity: "warning" },
    ];
  return { ...result, pages };
}

/** A text PDF's payment QR code, where its text says one may be printed (see qr.ts); the page is rendered for it. */
async function paymentQrOfTextPdf(bytes: Uint8Array, items: TextItem[], pageSizes: PageSize[], limits: ExtractionLimits) {
  if (limits.paymentQr === false) return undefined;
  const page = pageToSearchForQr(items);
  const size = page === undefined ? undefined : pageSizes[page - 1];
  if (page === undefined || !size) return undefined;
  return paymentQrOnPdfPage(bytes, page, size, {
    timeoutMs: Math.min(limits.ocrTimeoutMs, QR_RENDER_TIMEOUT_MS),
    maxPixels: limits.maxOcrPixels,
  });
}

/** Rendering one page for its QR code takes tens of ms; a page that takes seconds is not worth it. */
const QR_RENDER_TIMEOUT_MS = 5_000;

const EINVOICE_ATTACHMENT = /\.(xml|isdoc)$/i;

/** An amount as a page may print it: 1589.80, 1589,80, 1,589.80, 1.589,80, 1 589,80. */
function printedAmounts(value: string): string[] {
  const [whole = "", cents = "00"] = value.replace(/^-/, "").split(".");
  const grouped = (separator: string) => whole.replace(/\B(?=(\d{3})+(?!\d))/g, separator);
  return [`${whole}.${cents}`, `${whole},${cents}`, `${grouped(",")}.${cents}`, `${grouped(".")},${cents}`, `${grouped("")},${cents}`];
}

/**
 * Whether an embedded e-invoice is the printed one: its number or its total is on the page (compared without
 * spaces). A page without text (a scan with an XML) cannot contradict it.
 */
function printedMatches(read: ExtractionResult, items: TextItem[]): boolean {
  const page = items
    .map((item) => item.text)
    .join("")
    .replace(/\s+/g, "");
  if (page.length < 20) return true;
  const id = read.fields.invoice_id?.value.replace(/\s+/g, "");
  if (id && page.includes(id)) return true;
  const total = read.fields.total_due?.value;
  if (total && printedAmounts(total).some((form) => page.includes(form.replace(/\s+/g, "")))) return true;
  return !id && !total;
}

async function fromPdf(bytes: Uint8Array, limits: ExtractionLimits, pagesOnly = false): Promise<ExtractionResult> {
  const pdf = await openPdf(bytes);
  try {
    const sizes = await pdf.pageSizes(Math.min(pdf.pages, MAX_LISTED_PAGES));
    const { printed, ...read } = await readPdf(pdf, bytes, sizes, limits, pagesOnly);
    return read.pages || read.needsOcr ? read : { ...read, pages: pagesOf(sizes, printed, sizes, limits.maxPages) };
  } finally {
    await pdf.close().catch(() => undefined);
  }
}

/** A PDF's invoice: an embedded e-invoice checked against the page, else the text layer, else OCR. */
async function readPdf(
  pdf: Awaited<ReturnType<typeof openPdf>>,
  bytes: Uint8Array,
  sizes: PageSize[],
  limits: ExtractionLimits,
  pagesOnly: boolean,
): Promise<ExtractionResult & { printed?: TextItem[] }> {
  const embedded = pagesOnly ? { attachments: [], problems: [] } : await readAttachments(bytes, EINVOICE_ATTACHMENT, limits.maxXmlBytes);
  // The page's text is read at most once: to check an embedded XML against it, and to read the page.
  let printedItems: TextItem[] | undefined;
  const printedText = async () => {
    printedItems ??= await pdf.text(limits.maxPages);
    return printedItems;
  };
  const messages: ExtractionMessage[] = embedded.problems.map((message) => ({ key: null, message, severity: "warning" }));
  for (const attachment of embedded.attachments) {
    try {
      const read = readEinvoice(parseXml(attachment.content, limits.maxXmlBytes), "pdf");
      if (!read) continue;
      if (printedMatches(read, await printedText())) return { ...read, printed: printedItems };
      // The XML describes another invoice than the page (a template's XML left in happens). Which one is the
      // invoice is the standard's rule: in Factur-X / ZUGFeRD 2 the XML is, in ZUGFeRD 1.0 the printed page is.
      const described = `its number ${read.fields.invoice_id?.value ?? "–"} and total ${read.fields.total_due?.value ?? "–"} are not on the page`;
      if (read.format !== "zugferd1")
        return {
          ...read,
          printed: printedItems,
          messages: [
            ...read.messages,
            {
              key: null,
              message: `The attached ${attachment.name} describes another invoice than the printed page (${described}); its values were read, as the XML is the invoice in this standard. Check the page with the supplier.`,
              severity: "warning",
            },
          ],
        };
      messages.push({
        key: null,
        message: `The attached ${attachment.name} describes another invoice (${described}); the printed invoice was read instead, as the page is the invoice in ZUGFeRD 1.0.`,
        severity: "warning",
      });
      break;
    } catch (error) {
      if (!(error instanceof UnreadableFileError)) throw error;
      messages.push({ key: null, message: `The attached ${attachment.name} was not read: ${error.message}`, severity: "warning" });
    }
  }
  if (pdf.pages > limits.maxPages)
    messages.push({
      key: null,
      message: `The PDF has ${pdf.pages} pages; only the first ${limits.maxPages} were read.`,
      severity: "info",
    });
  const items = await printedText();
  const textLength = items.reduce((total, item) => total + item.text.trim().length, 0);
  let result: ExtractionResult & { printed?: TextItem[] };
  if (textLength >= 20) {
    const pageSizes = sizes.slice(0, limits.maxPages);
    result = { ...(await fromWords(items, "builtin:pdf_text", pageSizes)), printed: items };
    const found = await paymentQrOfTextPdf(bytes, items, pageSizes, limits);
    if (found) result = { ...withPaymentQr(result, found), printed: items };
  } else result = await fromOcr(bytes, "pdf", limits, sizes);
  return { ...result, messages: [...messages, ...result.messages] };
}

/**
 * Reads an uploaded file: an e-invoice exactly, a PDF from its text layer, a scan by OCR. A file that
 * cannot be read answers a result with a message instead of throwing, so the document still reaches
 * validation. Runs inside a worker with time and memory limits (see pool.ts).
 */
export async function extractInvoice(input: ExtractionInput, limits: ExtractionLimits = DEFAULT_LIMITS): Promise<ExtractionResult> {
  return withholdUnsure(await readInvoice(input, limits), limits.minConfidence);
}

async function readInvoice(input: ExtractionInput, limits: ExtractionLimits): Promise<ExtractionResult> {
  const { bytes } = input;
  try {
    const kind = sniffKind(bytes);
    if (kind === "pdf") return await fromPdf(bytes, limits, input.pagesOnly === true);
    if (kind === "zip") {
      const read = readEinvoice(parseXml(isdocOfIsdocx(bytes, limits.maxXmlBytes), limits.maxXmlBytes), "isdocx");
      return { ...(read ?? unreadable("The archive's .isdoc document is not an ISDOC invoice.")), pages: [] };
    }
    if (kind === "xml") {
      const read = readEinvoice(parseXml(bytes, limits.maxXmlBytes));
      // No page: the pages API lists none.
      return {
        ...(read ?? unreadable("The XML file is not an e-invoice this engine reads (ISDOC, UBL 2.1, CII / XRechnung).", "info")),
        pages: [],
      };
    }
    if (kind === "image") return await fromOcr(bytes, "image", limits);
    return unreadable("The file is not a PDF, image or e-invoice; nothing was extracted.", "info");
  } catch (error) {
    if (error instanceof UnreadableFileError) return unreadable(error.message);
    throw error;
  }
}
