/** Checks that tell a real value from text that only looks like one. Each answers the normalized value or undefined. */

const CZ_ACCOUNT_WEIGHTS = [6, 3, 7, 9, 10, 5, 8, 4, 2, 1];

function mod97(digits: string): number {
  let rest = 0;
  for (const digit of digits) rest = (rest * 10 + Number(digit)) % 97;
  return rest;
}

/** IBAN without spaces, upper case, when its mod-97 check holds. */
export function normalizeIban(text: string): string | undefined {
  const compact = text.replace(/[\s-]/g, "").toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(compact)) return undefined;
  const expected: Record<string, number> = { CZ: 24, SK: 24, DE: 22, AT: 20, PL: 28, GB: 22, FR: 27, NL: 18 };
  const length = expected[compact.slice(0, 2)];
  if (length !== undefined && compact.length !== length) return undefined;
  const rearranged = (compact.slice(4) + compact.slice(0, 4)).replace(/[A-Z]/g, (letter) => String(letter.charCodeAt(0) - 55));
  return mod97(rearranged) === 1 ? compact : undefined;
}

function weightedMod11(digits: string, weights: number[]): boolean {
  const padded = digits.padStart(weights.length, "0");
  let sum = 0;
  for (let index = 0; index < weights.length; index += 1) sum += Number(padded[index]) * (weights[index] as number);
  return sum % 11 === 0;
}

/** A Czech account number `[prefix-]number/bank` whose prefix and number pass their mod-11 checks. */
export function normalizeCzechAccount(text: string): string | undefined {
  const match = /^(?:(\d{1,6})-)?(\d{2,10})\/(\d{4})$/.exec(text.replace(/\s/g, ""));
  if (!match) return undefined;
  const [, prefix, number, bank] = match as unknown as [string, string | undefined, string, string];
  if (/^0+$/.test(number)) return undefined;
  if (prefix && !weightedMod11(prefix, CZ_ACCOUNT_WEIGHTS.slice(4))) return undefined;
  if (!weightedMod11(number, CZ_ACCOUNT_WEIGHTS)) return undefined;
  const cleanPrefix = prefix ? String(Number(prefix)) : "";
  return `${cleanPrefix && cleanPrefix !== "0" ? `${cleanPrefix}-` : ""}${number.replace(/^0+/, "")}/${bank}`;
}

/** The Czech account inside a CZ IBAN (bank code, prefix, number). */
export function czechAccountOfIban(iban: string): string | undefined {
  if (!iban.startsWith("CZ") || iban.length !== 24) return undefined;
  const bank = iban.slice(4, 8);
  const prefix = String(Number(iban.slice(8, 14)));
  const number = iban.slice(14).replace(/^0+/, "");
  return `${prefix !== "0" ? `${prefix}-` : ""}${number}/${bank}`;
}

/** IČO: eight digits with the mod-11 check digit. */
export function normalizeIco(text: string): string | undefined {
  const digits = text.replace(/\s/g, "");
  if (!/^\d{6,8}$/.test(digits)) return undefined;
  const padded = digits.padStart(8, "0");
  let sum = 0;
  for (let index = 0; index < 7; index += 1) sum += Number(padded[index]) * (8 - index);
  const check = (11 - (sum % 11)) % 10;
  return check === Number(padded[7]) ? padded : undefined;
}

const VAT_FORMATS: Record<string, RegExp> = {
  CZ: /^CZ\d{8,10}$/,
  SK: /^SK\d{10}$/,
  DE: /^DE\d{9}$/,
  AT: /^ATU\d{8}$/,
  PL: /^PL\d{10}$/,
  FR: /^FR[A-Z0-9]{2}\d{9}$/,
  NL: /^NL\d{9}B\d{2}$/,
  GB: /^GB\d{9}(\d{3})?$/,
};

/** DIČ / VAT id in its country's format, without spaces. */
export function normalizeVatId(text: string): string | undefined {
  const compact = text.replace(/[\s.-]/g, "").toUpperCase();
  const format = VAT_FORMATS[compact.slice(0, 2)];
  return format?.test(compact) ? compact : undefined;
}

/** A German commercial register number (HRB/HRA + court number). */
export function normalizeGermanRegister(text: string): string | undefined {
  const match = /^(HR[AB])\s*(\d{1,6})$/i.exec(text.trim());
  return match ? `${(match[1] as string).toUpperCase()} ${match[2]}` : undefined;
}

const MONTHS: Record<string, number> = {
  jan: 1,
  january: 1,
  januar: 1,
  feb: 2,
  february: 2,
  februar: 2,
  mar: 3,
  march: 3,
  marz: 3,
  apr: 4,
  april: 4,
  may: 5,
  mai: 5,
  jun: 6,
  june: 6,
  juni: 6,
  jul: 7,
  july: 7,
  juli: 7,
  aug: 8,
  august: 8,
  sep: 9,
  sept: 9,
  september: 9,
  oct: 10,
  october: 10,
  okt: 10,
  oktober: 10,
  nov: 11,
  november: 11,
  dec: 12,
  december: 12,
  dez: 12,
  dezember: 12,
};

function isoDate(year: number, month: number, day: number): string | undefined {
  if (year < 1900 || year > 2200) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return date.toISOString().slice(0, 10);
}

/** A real calendar date in one of the forms invoices print, as YYYY-MM-DD. */
export function normalizeDate(text: string): string | undefined {
  const trimmed = text.trim().replace(/\s+/g, " ");
  let match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(trimmed);
  if (match) return isoDate(Number(match[1]), Number(match[2]), Number(match[3]));
  match = /^(\d{4})(\d{2})(\d{2})$/.exec(trimmed);
  if (match) return isoDate(Number(match[1]), Number(match[2]), Number(match[3]));
  match = /^(\d{1,2})\s?[./]\s?(\d{1,2})\s?[./]\s?(\d{4})$/.exec(trimmed);
  if (match) return isoDate(Number(match[3]), Number(match[2]), Number(match[1]));
  match = /^(\d{1,2})\.?\s([A-Za-zä]+)\.?\s(\d{4})$/.exec(trimmed);
  if (match) {
    const month = MONTHS[(match[2] as string).toLowerCase().replace("ä", "a")];
    return month ? isoDate(Number(match[3]), month, Number(match[1])) : undefined;
  }
  match = /^([A-Za-z]+)\.?\s(\d{1,2}),?\s(\d{4})$/.exec(trimmed);
  if (match) {
    const month = MONTHS[(match[1] as string).toLowerCase()];
    return month ? isoDate(Number(match[3]), month, Number(match[2])) : undefined;
  }
  return undefined;
}

/**
 * An amount with a decimal comma or point and optional thousands groups (space, non-breaking space, dot,
 * comma, apostrophe), currency signs around it allowed. Answers the number.
 */
export function parseAmount(text: string): number | undefined {
  let compact = text
    .replace(/(CZK|EUR|USD|GBP|Kč|Kc|€|\$|£|,-)/gi, "")
    .replace(/[\s\u00a0\u202f']/g, "")
    .trim();
  const negative = /^-|-$/.test(compact);
  compact = compact.replace(/^[-+]|-$/g, "");
  if (!/^\d[\d.,]*$/.test(compact)) return undefined;
  const lastComma = compact.lastIndexOf(",");
  const lastDot = compact.lastIndexOf(".");
  const decimalAt = Math.max(lastComma, lastDot);
  let integer = compact;
  let fraction = "";
  if (decimalAt >= 0 && compact.length - decimalAt - 1 <= 2 && compact.length - decimalAt - 1 >= 1) {
    integer = compact.slice(0, decimalAt);
    fraction = compact.slice(decimalAt + 1);
  }
  const groups = integer.split(/[.,]/);
  if (groups.length > 1 && !groups.slice(1).every((group) => /^\d{3}$/.test(group))) return undefined;
  const value = Number(`${groups.join("")}${fraction ? `.${fraction}` : ""}`);
  if (!Number.isFinite(value)) return undefined;
  return negative ? -value : value;
}

/** The text form of an amount the annotations carry: a point and two decimals. */
export function formatAmount(value: number): string {
  return value.toFixed(2);
}

/** A quantity or rate as short as it can be written: 2, 1.5, 21. */
export function formatQuantity(value: number): string {
  return String(Number(value.toFixed(6)));
}

/** Lower case without diacritics, so "Číslo účtu" and "Cislo uctu" match the same label. */
export function foldText(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase();
}
