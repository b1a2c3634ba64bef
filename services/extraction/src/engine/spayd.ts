import { crc32 } from "node:zlib";
import { MAX_QR_TEXT, type PaymentQr, qrAmount, qrCurrency, qrDate, qrIbans, qrVariableSymbol } from "./payment-qr.js";

/**
 * Czech "QR Platba": a Short Payment Descriptor (SPAYD, ČBA's standard), `SPD*1.0*ACC:CZ…*AM:480.50*CC:CZK*X-VS:…*
 * DT:20251231*CRC32:…`. Keys are case-insensitive; values may be percent-encoded (`*` is `%2A`). ACC (the IBAN,
 * optionally `+BIC`) is mandatory: a code without an account that passes the IBAN check is not a payment.
 *
 * CRC32 (optional) is computed over the canonical form: `SPD*<version>` and every other `KEY:value` sorted by key,
 * joined by `*`, as printed. A code whose CRC32 does not hold is still read, unchecksummed: generators that computed
 * it over another order exist, and the QR symbol itself is error-corrected (see qr.ts for the confidence).
 */
export function parseSpayd(text: string): PaymentQr | undefined {
  if (text.length > MAX_QR_TEXT) return undefined;
  const header = /^SPD\*(\d{1,2}\.\d{1,2})\*/i.exec(text);
  if (!header) return undefined;
  const pairs = new Map<string, string>();
  for (const segment of text.slice(header[0].length).split("*")) {
    if (segment === "") continue;
    const colon = segment.indexOf(":");
    if (colon <= 0) return undefined;
    const key = segment.slice(0, colon).toUpperCase();
    if (!/^[A-Z0-9-]{1,16}$/.test(key) || pairs.has(key)) return undefined;
    pairs.set(key, segment.slice(colon + 1));
  }
  const [account] = qrIbans([pairs.get("ACC")?.split("+")[0]]);
  if (!account) return undefined;
  const alternatives = (pairs.get("ALT-ACC") ?? "").split(",").map((entry) => entry.split("+")[0]);
  const currency = qrCurrency(pairs.get("CC")?.toUpperCase());
  const amount = qrAmount(pairs.get("AM"));
  const variableSymbol = qrVariableSymbol(pairs.get("X-VS"));
  const dueDate = qrDate(pairs.get("DT"));
  return {
    kind: "spayd",
    ibans: [account, ...qrIbans(alternatives).filter((iban) => iban !== account)],
    ...(amount ? { amount } : {}),
    ...(currency ? { currency } : {}),
    ...(variableSymbol ? { variableSymbol } : {}),
    ...(dueDate ? { dueDate } : {}),
    checksummed: crcHolds(header[1] as string, pairs),
  };
}

function crcHolds(version: string, pairs: Map<string, string>): boolean {
  const stated = pairs.get("CRC32");
  if (!stated || !/^[0-9A-F]{8}$/i.test(stated)) return false;
  const canonical = [`SPD*${version}`, ...[...pairs].filter(([key]) => key !== "CRC32").sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]
    .map((entry) => (typeof entry === "string" ? entry : `${entry[0]}:${entry[1]}`))
    .join("*");
  return crc32(canonical) === Number.parseInt(stated, 16);
}
