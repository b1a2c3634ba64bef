import { type Evidence, MIN_CONFIDENCE, type TableEvidence } from "./confidence.js";
/** Where an extracted value came from; written into the annotation's `source`. */
export type ValueSource = "builtin:einvoice" | "builtin:pdf_text" | "builtin:ocr" | "builtin:qr";

/** The fields the engine knows how to find; mapped onto a queue's schema by key (see annotations.ts). */
export const INVOICE_FIELD_KEYS = [
  "invoice_id",
  "document_type",
  "issue_date",
  "taxable_supply_date",
  "due_date",
  "total_due",
  "currency",
  "iban",
  "bank_account",
  "variable_symbol",
  "supplier_name",
  "supplier_tax_id",
  "supplier_register_id",
  "buyer_name",
  "buyer_tax_id",
  "total_without_tax",
  "total_tax",
] as const;
export type InvoiceFieldKey = (typeof INVOICE_FIELD_KEYS)[number];

export const LINE_ITEM_COLUMNS = ["activity", "quantity", "unit_price", "vat_rate", "total_incl_tax"] as const;
export type LineItemColumn = (typeof LINE_ITEM_COLUMNS)[number];
export type LineItemRow = Partial<Record<LineItemColumn, string>>;

/** One VAT rate's part of the invoice: the rate in %, its base and its tax (the `tax_details` table). */
export type TaxDetailRow = Partial<Record<"rate" | "base" | "tax", string>>;

/** Where a value was read: its page (from 1) and box as fractions of the page, [left, top, right, bottom] from top-left. */
export interface FieldPosition {
  page: number;
  box: [number, number, number, number];
}

/** A word on a page and its box, in the fractions of `FieldPosition` (GET /documents/{id}/pages/{n}/words). */
export interface PageWord {
  text: string;
  box: [number, number, number, number];
}

/**
 * A page of the file: its size in points (an image's pixels count as points) and, for the pages that were read, its
 * words (text layer or OCR). Kept by the service for the pages API.
 */
export interface PageRead {
  page: number;
  width: number;
  height: number;
  words?: PageWord[];
}

export interface ExtractedField {
  /** Normalized text: dates YYYY-MM-DD, amounts with a point and two decimals, IBAN without spaces. */
  value: string;
  /** 0–100, the scale of the API's confidences. */
  confidence: number;
  source: ValueSource;
  /** Where on which page the value was read (text PDFs and OCR); e-invoices have none. */
  position?: FieldPosition;
  /** What supports a value read from a page: the confidence model's input, kept for its training. */
  evidence?: Evidence;
}

export interface ExtractionMessage {
  key: string | null;
  message: string;
  severity: "info" | "warning" | "error";
}

/** How the file was read: the e-invoice standard, the PDF's text layer, OCR, or nothing. */
export type ExtractionFormat =
  | "isdoc"
  | "isdocx"
  | "ubl"
  | "cii"
  | "xrechnung"
  | "facturx"
  | "zugferd1"
  | "pdf_isdoc"
  | "pdf_text"
  | "ocr"
  | "unreadable";

export interface ExtractionResult {
  format: ExtractionFormat;
  fields: Partial<Record<InvoiceFieldKey, ExtractedField>>;
  lineItems?: { rows: LineItemRow[]; confidence: number; source: ValueSource; evidence?: TableEvidence };
  /** The VAT breakdown, one row per rate. */
  taxDetails?: { rows: TaxDetailRow[]; confidence: number; source: ValueSource };
  messages: ExtractionMessage[];
  /** The reader was stopped (memory, time, a crash): the document goes to extraction_failed, not to validation. */
  stopped?: true;
  /** The file needs OCR, which `deferOcr` left for a run of its own: nothing else is in this result. */
  needsOcr?: true;
  /** The file's pages with the words of those read; absent when the file was not read (a stop, a deferred OCR). */
  pages?: PageRead[];
}

/** The input of one extraction: the uploaded bytes and what the uploader said about them. */
export interface ExtractionInput {
  bytes: Uint8Array;
  fileName?: string;
  contentType?: string;
  /**
   * Read a PDF's printed pages only, as if it had no embedded e-invoice: the bench's way of turning a hybrid
   * PDF (Factur-X, ZUGFeRD) into a labelled text PDF. Production never sets it.
   */
  pagesOnly?: boolean;
}

/** Bounds of one extraction; the worker pool adds time and memory limits around it. */
export interface ExtractionLimits {
  /** Pages of a PDF read for text or OCR; later pages are ignored with an info message. */
  maxPages: number;
  /** Pages rasterized and OCRed. */
  maxOcrPages: number;
  /** Bytes an XML document may have (also the cap of what an .isdocx entry may inflate to). */
  maxXmlBytes: number;
  /** Milliseconds one OCR run may take. */
  ocrTimeoutMs: number;
  /** Whether OCR may run (tesseract and pdftoppm on PATH). */
  ocr: boolean;
  /** Pixels one page is rasterized to, or one image may have, for OCR. */
  maxOcrPixels: number;
  /**
   * A file that needs OCR is not OCRed in this run: the result only says `needsOcr`, so that the service can run the
   * OCR where it does not hold up files that have text (see the read scheduler).
   */
  deferOcr?: boolean;
  /** Whether payment QR codes are looked for (default yes); see qr.ts. */
  paymentQr?: boolean;
  /**
   * A value read from a page with a confidence below this (0–100) is left empty: more likely wrong than worth a
   * check (see `withholdUnsure` in confidence.ts). 0 gives every value read.
   */
  minConfidence: number;
}

export const DEFAULT_LIMITS: ExtractionLimits = {
  maxPages: 20,
  maxOcrPages: 3,
  maxXmlBytes: 10 * 1024 * 1024,
  ocrTimeoutMs: 20_000,
  ocr: true,
  // An A3 page at 200 dpi is 7.8 million; 25 million is about 100 MB of rasterizer bitmap.
  maxOcrPixels: 25_000_000,
  minConfidence: MIN_CONFIDENCE,
};

/** A file the engine refuses to read further; its message is shown to the user. */
export class UnreadableFileError extends Error {}
