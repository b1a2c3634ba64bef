/** A Czech account: optional prefix, number and bank code. */
export interface CzechAccount {
  prefix: string;
  number: string;
  bank: string;
}

/** `[prefix-]number/bank`, or a Czech IBAN (CZkk BBBB PPPPPP NNNNNNNNNN); undefined for anything else. */
export function czechAccountOf(text: string | undefined): CzechAccount | undefined {
  if (!text) return undefined;
  const compact = text.replace(/\s/g, "").toUpperCase();
  const local = /^(?:(\d{1,6})-)?(\d{2,10})\/(\d{4})$/.exec(compact);
  if (local) return { prefix: local[1] ?? "0", number: local[2]!, bank: local[3]! };
  const iban = /^CZ\d{2}(\d{4})(\d{6})(\d{10})$/.exec(compact);
  if (iban && ibanIsValid(compact)) return { prefix: String(Number(iban[2])), number: String(Number(iban[3])), bank: iban[1]! };
  return undefined;
}

/** ISO 13616: the country, the check digits and the rest, mod 97 = 1. */
export function ibanIsValid(text: string): boolean {
  const iban = text.replace(/\s/g, "").toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const digits = `${iban.slice(4)}${iban.slice(0, 4)}`.replace(/[A-Z]/g, (letter) => String(letter.charCodeAt(0) - 55));
  let remainder = 0;
  for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  return remainder === 1;
}
