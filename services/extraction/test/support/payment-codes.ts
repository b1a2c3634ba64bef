import { crc32 } from "node:zlib";
import { type InvoiceTruth, invoicePdf, totalDue } from "@docex/testkit/invoice-corpus";
import { lzma } from "@napi-rs/lzma";
import { type PDFDocument, StandardFonts } from "pdf-lib";
import QRCode from "qrcode";

/**
 * Payment QR codes made for tests with encoders independent of the engine's decoders: qrcode for the symbol,
 * @napi-rs/lzma for PAY by square's compression, the payloads written here from the standards.
 */

/** What a payment code in these tests asks for. */
export interface Payment {
  iban: string;
  amount: string;
  currency: string;
  variableSymbol: string;
  /** YYYY-MM-DD */
  dueDate: string;
}

const compactDate = (iso: string) => iso.replace(/-/g, "");

/** A QR Platba text with its CRC32 over the canonical form (keys sorted), as ČBA's standard defines it. */
export function spayd(payment: Payment, options: { crc?: boolean } = {}): string {
  const pairs: [string, string][] = [
    ["ACC", payment.iban],
    ["AM", payment.amount],
    ["CC", payment.currency],
    ["DT", compactDate(payment.dueDate)],
    ["MSG", "FAKTURA"],
    ["X-VS", payment.variableSymbol],
  ];
  const canonical = ["SPD*1.0", ...pairs.sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, value]) => `${key}:${value}`)].join("*");
  if (options.crc === false) return canonical;
  return `${canonical}*CRC32:${crc32(canonical).toString(16).toUpperCase().padStart(8, "0")}`;
}

export const BASE32HEX = "0123456789ABCDEFGHIJKLMNOPQRSTUV";

export function base32hex(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32HEX[(buffer >> bits) & 31];
    }
  }
  if (bits > 0) out += BASE32HEX[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * A PAY by square text made here, independently of the engine's decoder: the payload of specification 1.1 (one payment
 * order, one account, a beneficiary), CRC32 before it, LZMA1 by @napi-rs/lzma with the 13-byte .lzma header cut off,
 * the by-square header (type 0, version 1) and the length in front, base32hex.
 */
export function payBySquare(payment: Payment, options: { breakCrc?: boolean } = {}): string {
  const payload = [
    "",
    "1",
    "1",
    payment.amount,
    payment.currency,
    compactDate(payment.dueDate),
    payment.variableSymbol,
    "0308",
    "",
    "",
    "Faktura",
    "1",
    payment.iban,
    "",
    "0",
    "0",
    "Dodavatel s.r.o.",
    "",
    "",
  ].join("\t");
  const body = Buffer.from(payload, "utf8");
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32LE((crc32(body) + (options.breakCrc ? 1 : 0)) >>> 0);
  const plain = Buffer.concat([checksum, body]);
  const header = Buffer.from([0x01, 0x00, plain.length & 0xff, plain.length >> 8]);
  return base32hex(Buffer.concat([header, lzma.compressSync(plain).subarray(13)]));
}

export async function qrPng(text: string): Promise<Uint8Array> {
  return new Uint8Array(await QRCode.toBuffer(text, { scale: 4, margin: 2, errorCorrectionLevel: "M" }));
}

/** A PDF page with the given QR codes in its lower left corner, under a "QR Platba" caption. */
export async function withCodes(document: PDFDocument, texts: string[]): Promise<Uint8Array> {
  const page = document.getPage(0);
  const font = await document.embedFont(StandardFonts.Helvetica);
  page.drawText("QR Platba", { x: 50, y: 175, size: 9, font });
  for (const [index, text] of texts.entries()) {
    page.drawImage(await document.embedPng(await qrPng(text)), { x: 50 + index * 120, y: 60, width: 105, height: 105 });
  }
  return document.save();
}

export async function invoiceWithCodes(invoice: InvoiceTruth, texts: string[]): Promise<Uint8Array> {
  return withCodes(await invoicePdf(invoice, "cs", "columns"), texts);
}

export function paymentOf(invoice: InvoiceTruth): Payment {
  return {
    iban: invoice.supplier.iban,
    amount: totalDue(invoice).toFixed(2),
    currency: invoice.currency,
    variableSymbol: invoice.variableSymbol,
    dueDate: invoice.dueDate,
  };
}

/** A valid Czech IBAN other than the invoice's (same bank, another account). */
export const OTHER_IBAN = "CZ6508000000192000145399";
