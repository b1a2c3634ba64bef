import { crc32 } from "node:zlib";
import { lzma } from "@napi-rs/lzma";
import { MAX_QR_TEXT, type PaymentQr, qrAmount, qrCurrency, qrDate, qrIbans, qrVariableSymbol } from "./payment-qr.js";

/**
 * Slovak "PAY by square" (Slovak Banking Association, specification 1.0–1.2): the QR text is base32hex (RFC 4648,
 * `0-9A-V`, no padding) of
 *
 *   2 bytes  header: by-square type, version, document type, reserved (a nibble each); PAY is type 0, document 0
 *   2 bytes  length of what follows once decompressed (little-endian)
 *   …        LZMA1 "raw": the body of an .lzma stream without its 13-byte header; lc=3, lp=0, pb=2, dictionary 2^17
 *
 * and decompressed: the CRC32 of the payload (4 bytes, little-endian), then the payload: tab-separated fields,
 * `invoiceId, payments count, [type, amount, currency, due date, variable symbol, constant symbol, specific symbol,
 * originator's reference, note, accounts count, [IBAN, BIC]…, standing order flag [+4], direct debit flag [+10]]…,
 * [beneficiary name, street, city]…` (beneficiaries from 1.1).
 *
 * The .lzma header is rebuilt with the declared length as the uncompressed size, so the decoder stops there: a
 * code cannot inflate past 64 KiB. The CRC is mandatory here: a code whose CRC does not hold is not read.
 */
export function parsePayBySquare(text: string): PaymentQr | undefined {
  if (text.length > MAX_QR_TEXT || !/^[0-9A-V]{8,}$/.test(text)) return undefined;
  const bytes = base32hexBytes(text);
  if (bytes.length < 6) return undefined;
  const [first, second] = [bytes.readUInt8(0), bytes.readUInt8(1)];
  const [type, version, documentType] = [first >> 4, first & 0x0f, second >> 4];
  if (type !== 0 || version > 2 || documentType !== 0) return undefined;
  const declared = bytes.readUInt16LE(2);
  if (declared <= 4) return undefined;
  const header = Buffer.alloc(13);
  header[0] = 0x5d;
  header.writeUInt32LE(1 << 17, 1);
  header.writeUInt32LE(declared, 5);
  let decompressed: Buffer;
  try {
    decompressed = lzma.decompressSync(Buffer.concat([header, bytes.subarray(4)]));
  } catch {
    return undefined;
  }
  if (decompressed.length !== declared) return undefined;
  const payload = decompressed.subarray(4);
  if (crc32(payload) !== decompressed.readUInt32LE(0)) return undefined;
  let fields: string[];
  try {
    fields = new TextDecoder("utf-8", { fatal: true }).decode(payload).split("\t");
  } catch {
    return undefined;
  }
  return firstPayment(fields);
}

/** The first payment of a PAY payload (the one an invoice asks for); its accounts must hold an IBAN that checks. */
function firstPayment(fields: string[]): PaymentQr | undefined {
  const payments = Number(fields[1]);
  if (!Number.isInteger(payments) || payments < 1) return undefined;
  const [, , , amountText, currencyText, dueText, symbol] = fields;
  const accounts = Number(fields[11]);
  if (!Number.isInteger(accounts) || accounts < 1 || accounts > 10 || fields.length < 12 + 2 * accounts) return undefined;
  const ibans = qrIbans(Array.from({ length: accounts }, (_, index) => fields[12 + 2 * index]));
  if (ibans.length === 0) return undefined;
  const amount = qrAmount(amountText);
  const currency = qrCurrency(currencyText);
  const variableSymbol = qrVariableSymbol(symbol);
  const dueDate = qrDate(dueText);
  return {
    kind: "pay_by_square",
    ibans,
    ...(amount ? { amount } : {}),
    ...(currency ? { currency } : {}),
    ...(variableSymbol ? { variableSymbol } : {}),
    ...(dueDate ? { dueDate } : {}),
    checksummed: true,
  };
}

const BASE32HEX = "0123456789ABCDEFGHIJKLMNOPQRSTUV";

/** RFC 4648 base32hex without padding; trailing bits that do not fill a byte are dropped. */
function base32hexBytes(text: string): Buffer {
  const out = Buffer.alloc(Math.floor((text.length * 5) / 8));
  let buffer = 0;
  let bits = 0;
  let at = 0;
  for (const character of text) {
    buffer = ((buffer << 5) | BASE32HEX.indexOf(character)) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (buffer >> bits) & 0xff;
    }
  }
  return out;
}
