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
  FR: /^FR[A-HJ-NP-Z0-9]{2}\d{9}$/,
  NL: /^NL\d{9}B\d{2}$/,
  GB: /^GB(\d{9}(\d{3})?|GD\d{3}|HA\d{3})$/,
  BE: /^BE[01]\d{9}$/,
  IT: /^IT\d{11}$/,
  ES: /^ES[A-Z0-9]\d{7}[A-Z0-9]$/,
  LU: /^LU\d{8}$/,
  DK: /^DK\d{8}$/,
  SE: /^SE\d{10}01$/,
  FI: /^FI\d{8}$/,
  HU: /^HU\d{8}$/,
  SI: /^SI\d{8}$/,
  HR: /^HR\d{11}$/,
  RO: /^RO\d{2,10}$/,
  PT: /^PT\d{9}$/,
  IE: /^IE\d[A-Z0-9+*]\d{5}[A-Z]{1,2}$/,
  EL: /^EL\d{9}$/,
  CH: /^CHE\d{9}(MWST|TVA|IVA)?$/,
};

const digitsOf = (text: string) => [...text].map(Number);

/**
 * Whether a VAT id (normalized, country prefix included) passes its country's check digit, where one is defined
 * and known here: true or false; undefined where this engine knows no check for the country.
 */
export function vatChecksumHolds(vatId: string): boolean | undefined {
  const country = vatId.slice(0, 2);
  const body = vatId.slice(2);
  switch (country) {
    case "DE": {
      // ISO 7064 MOD 11,10 over the first eight digits.
      let product = 10;
      for (const digit of digitsOf(body.slice(0, 8))) {
        let sum = (digit + product) % 10;
        if (sum === 0) sum = 10;
        product = (2 * sum) % 11;
      }
      const check = (11 - product) % 10;
      return check === Number(body[8]);
    }
    case "AT": {
      const digits = digitsOf(body.slice(1, 8));
      let sum = 0;
      digits.forEach((digit, index) => {
        if (index % 2 === 0) sum += digit;
        else sum += Math.floor((digit * 2) / 10) + ((digit * 2) % 10);
      });
      return (96 - sum) % 10 === Number(body[8]);
    }
    case "FR": {
      if (!/^\d{2}/.test(body)) return undefined;
      const siren = Number(body.slice(2));
      return (12 + 3 * (siren % 97)) % 97 === Number(body.slice(0, 2));
    }
    case "BE":
      return 97 - (Number(body.slice(0, 8)) % 97) === Number(body.slice(8));
    case "NL": {
      const number = body.slice(0, 9);
      const weights = [9, 8, 7, 6, 5, 4, 3, 2];
      const sum = weights.reduce((total, weight, index) => total + weight * Number(number[index]), 0);
      if (sum % 11 === Number(number[8])) return true;
      // Since 2020 a sole trader's id is checked with mod 97 over "NL" + the id, as an IBAN is.
      return mod97(`2321${body}`.replace("B", "11")) === 1;
    }
    case "PL": {
      const weights = [6, 5, 7, 2, 3, 4, 5, 6, 7];
      const sum = weights.reduce((total, weight, index) => total + weight * Number(body[index]), 0);
      return sum % 11 === Number(body[9]);
    }
    case "SK":
      return Number(body) % 11 === 0;
    case "CZ":
      return body.length === 8 ? normalizeIco(body) !== undefined : undefined;
    case "IT": {
      let sum = 0;
      digitsOf(body.slice(0, 10)).forEach((digit, index) => {
        if (index % 2 === 0) sum += digit;
        else sum += digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
      });
      return (10 - (sum % 10)) % 10 === Number(body[10]);
    }
    case "DK": {
      const weights = [2, 7, 6, 5, 4, 3, 2, 1];
      return weights.reduce((total, weight, index) => total + weight * Number(body[index]), 0) % 11 === 0;
    }
    case "FI": {
      const weights = [7, 9, 10, 5, 8, 4, 2];
      const rest = weights.reduce((total, weight, index) => total + weight * Number(body[index]), 0) % 11;
      return rest !== 1 && (rest === 0 ? 0 : 11 - rest) === Number(body[7]);
    }
    case "LU":
      return Number(body.slice(0, 6)) % 89 === Number(body.slice(6));
    default:
      return undefined;
  }
}

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
  // fr, nl, it, es, pl (genitive), cs and sk (genitive), folded (no diacritics, lower case)
  janvier: 1,
  fevrier: 2,
  mars: 3,
  avril: 4,
  juin: 6,
  juillet: 7,
  aout: 8,
  septembre: 9,
  octobre: 10,
  novembre: 11,
  decembre: 12,
  januari: 1,
  februari: 2,
  maart: 3,
  mei: 5,
  augustus: 8,
  gennaio: 1,
  febbraio: 2,
  marzo: 3,
  aprile: 4,
  maggio: 5,
  giugno: 6,
  luglio: 7,
  agosto: 8,
  settembre: 9,
  ottobre: 10,
  dicembre: 12,
  enero: 1,
  febrero: 2,
  abril: 4,
  mayo: 5,
  junio: 6,
  julio: 7,
  septiembre: 9,
  setiembre: 9,
  octubre: 10,
  noviembre: 11,
  diciembre: 12,
  stycznia: 1,
  lutego: 2,
  marca: 3,
  kwietnia: 4,
  maja: 5,
  czerwca: 6,
  lipca: 7,
  sierpnia: 8,
  wrzesnia: 9,
  pazdziernika: 10,
  listopada: 11,
  grudnia: 12,
  ledna: 1,
  unora: 2,
  brezna: 3,
  dubna: 4,
  kvetna: 5,
  cervna: 6,
  cervence: 7,
  srpna: 8,
  zari: 9,
  rijna: 10,
  listopadu: 11,
  prosince: 12,
  januara: 1,
  februara: 2,
  aprila: 4,
  juna: 6,
  jula: 7,
  augusta: 8,
  septembra: 9,
  oktobra: 10,
  novembra: 11,
  decembra: 12,
  mrt: 3,
  fev: 2,
  avr: 4,
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

function monthOf(word: string): number | undefined {
  return MONTHS[word] ?? (word.length >= 3 ? MONTHS[word.slice(0, 3)] : undefined);
}

function isoDate(year: number, month: number, day: number): string | undefined {
  if (year < 1900 || year > 2200) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return date.toISOString().slice(0, 10);
}

/** The order of a numeric date's day and month: day first (most of the world) or month first (the US). */
export type DateOrder = "dmy" | "mdy";

/** A real calendar date in one of the forms invoices print, as YYYY-MM-DD; `order` reads 03/11/2017 (default day first). */
export function normalizeDate(text: string, order: DateOrder = "dmy"): string | undefined {
  const trimmed = foldText(text).trim().replace(/\s+/g, " ");
  const slashed = /^(\d{1,2})\s?([./-])\s?(\d{1,2})\s?\2\s?(\d{4}|\d{2})$/.exec(trimmed);
  if (slashed) {
    const [, first, , second, yearText] = slashed as unknown as [string, string, string, string, string];
    const year = yearText.length === 2 ? 2000 + Number(yearText) : Number(yearText);
    const [day, month] = order === "mdy" ? [Number(second), Number(first)] : [Number(first), Number(second)];
    return isoDate(year, month, day);
  }
  let match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(trimmed);
  if (match) return isoDate(Number(match[1]), Number(match[2]), Number(match[3]));
  match = /^(\d{4})(\d{2})(\d{2})$/.exec(trimmed);
  if (match) return isoDate(Number(match[1]), Number(match[2]), Number(match[3]));
  match = /^(\d{1,2})\.?\s?(?:de\s)?([a-z]+)\.?,?\s(?:de\s)?(\d{4})$/.exec(trimmed);
  if (match) {
    const month = monthOf(match[2] as string);
    return month ? isoDate(Number(match[3]), month, Number(match[1])) : undefined;
  }
  match = /^([a-z]+)\.?\s(\d{1,2})(?:st|nd|rd|th)?,?\s(\d{4})$/.exec(trimmed);
  if (match) {
    const month = monthOf(match[1] as string);
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
