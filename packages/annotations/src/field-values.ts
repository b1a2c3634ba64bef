/**
 * Reading typed values out of the text a person or the AI wrote. Invoices come in several
 * conventions, so both decimal separators and the common European date forms are accepted;
 * anything ambiguous beyond that is refused rather than guessed.
 */

const GROUP_SPACES = /[\s\u00a0\u202f']/g;

/**
 * "1234.5", "-12,50", "1 234,56", "1,234.56", "1.234.567,8" → a number; undefined when it is not one.
 * With both separators present the later one is the decimal point; a separator that repeats groups thousands;
 * a single comma or dot is the decimal point.
 */
export function parseNumber(text: string): number | undefined {
  let compact = text.trim().replace(GROUP_SPACES, "");
  if (!/^[+-]?[\d.,]+$/.test(compact) || !/\d/.test(compact)) return undefined;
  const lastComma = compact.lastIndexOf(",");
  const lastDot = compact.lastIndexOf(".");
  if (lastComma >= 0 && lastDot >= 0) {
    const decimal = lastComma > lastDot ? "," : ".";
    const group = decimal === "," ? "." : ",";
    if (compact.indexOf(decimal) !== compact.lastIndexOf(decimal)) return undefined;
    compact = compact.split(group).join("").replace(decimal, ".");
  } else {
    const separator = lastComma >= 0 ? "," : lastDot >= 0 ? "." : undefined;
    if (separator) {
      const parts = compact.split(separator);
      if (parts.length > 2) {
        // Repeated: thousands groups, each of exactly three digits after the first.
        if (!parts.slice(1).every((part) => /^\d{3}$/.test(part))) return undefined;
        compact = parts.join("");
      } else {
        compact = parts.join(".");
      }
    }
  }
  if (!/^[+-]?\d+(\.\d+)?$/.test(compact)) return undefined;
  const value = Number(compact);
  return Number.isFinite(value) ? value : undefined;
}

const DATE_FORMS: Array<{ pattern: RegExp; order: "ymd" | "dmy" }> = [
  { pattern: /^(\d{4})-(\d{2})-(\d{2})$/, order: "ymd" },
  { pattern: /^(\d{1,2})\.\s?(\d{1,2})\.\s?(\d{4})$/, order: "dmy" },
  { pattern: /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/, order: "dmy" },
];

/** "2024-03-31", "31.3.2024", "31. 3. 2024", "31/03/2024" → "2024-03-31"; undefined for anything else or a day that does not exist. */
export function parseDate(text: string): string | undefined {
  const trimmed = text.trim();
  for (const { pattern, order } of DATE_FORMS) {
    const match = pattern.exec(trimmed);
    if (!match) continue;
    const [a, b, c] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const [year, month, day] = order === "ymd" ? [a, b, c] : [c, b, a];
    const date = new Date(Date.UTC(year, month - 1, day));
    if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
    if (year < 1000) return undefined;
    return date.toISOString().slice(0, 10);
  }
  return undefined;
}

/** Why `text` cannot be a value of a field of `type`; undefined when it can. Empty text is always allowed. */
export function typeProblem(type: string, text: string): string | undefined {
  if (text.trim() === "") return undefined;
  if (type === "number" && parseNumber(text) === undefined) return `"${text}" is not a number`;
  if (type === "date" && parseDate(text) === undefined) return `"${text}" is not a date (YYYY-MM-DD, D.M.YYYY or D/M/YYYY)`;
  return undefined;
}
