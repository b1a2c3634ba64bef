import { formatAmount, normalizeDate, normalizeIban } from "./validators.js";

/** What a payment QR code asks to pay, in the engine's normalized forms. */
export interface PaymentQr {
  kind: "spayd" | "pay_by_square";
  /** The account to pay, then any alternatives the code lists; each passed its IBAN check. */
  ibans: string[];
  /** A point and two decimals. */
  amount?: string;
  currency?: string;
  variableSymbol?: string;
  /** YYYY-MM-DD. */
  dueDate?: string;
  /** Whether the payload carried a checksum and it held (PAY by square always does; SPAYD's `CRC32` is optional). */
  checksummed: boolean;
}

/** The longest text a QR code can hold (version 40, alphanumeric); anything longer did not come from one. */
export const MAX_QR_TEXT = 4_296;

/** An amount as payment codes write it (digits, a point, at most two decimals); undefined otherwise. */
export function qrAmount(text: string | undefined): string | undefined {
  if (!text || !/^\d{1,10}(\.\d{1,2})?$/.test(text)) return undefined;
  return formatAmount(Number(text));
}

/** A date as payment codes write it (YYYYMMDD), when it is a real day. */
export function qrDate(text: string | undefined): string | undefined {
  if (!text || !/^\d{8}$/.test(text)) return undefined;
  return normalizeDate(text);
}

/** A variable symbol: one to ten digits. */
export function qrVariableSymbol(text: string | undefined): string | undefined {
  return text && /^\d{1,10}$/.test(text) ? text : undefined;
}

export function qrCurrency(text: string | undefined): string | undefined {
  return text && /^[A-Z]{3}$/.test(text) ? text : undefined;
}

/** IBANs that pass their check, without duplicates. */
export function qrIbans(texts: (string | undefined)[]): string[] {
  const ibans = texts.map((text) => (text ? normalizeIban(text) : undefined)).filter((iban): iban is string => iban !== undefined);
  return [...new Set(ibans)];
}
