/** Invoices with known content: the ground truth every corpus file is generated from. */

export interface InvoiceLine {
  activity: string;
  quantity: number;
  unitPrice: number;
  vatRate: number;
}

export interface Supplier {
  name: string;
  country: "CZ" | "DE";
  taxId: string;
  registerId: string;
  iban: string;
  /** Czech account `[prefix-]number/bank`; none for a German supplier. */
  bankAccount?: string;
  street: string;
  city: string;
  zip: string;
}

export interface InvoiceTruth {
  invoiceId: string;
  issueDate: string;
  dueDate: string;
  currency: "CZK" | "EUR";
  variableSymbol: string;
  supplier: Supplier;
  buyer: { name: string; taxId: string; registerId: string; street: string; city: string; zip: string };
  lines: InvoiceLine[];
}

/** The annotations a perfect extraction yields, as the engine normalizes them. */
export interface ExpectedExtraction {
  fields: Record<string, string>;
  rows: Record<string, string>[];
}

/** A small deterministic PRNG (mulberry32), so the corpus is the same on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const round2 = (value: number) => Math.round(value * 100) / 100;

export function lineNet(line: InvoiceLine): number {
  return round2(line.quantity * line.unitPrice);
}

export function lineGross(line: InvoiceLine): number {
  return Math.round(lineNet(line) * (100 + line.vatRate)) / 100;
}

export function totalDue(invoice: InvoiceTruth): number {
  return round2(invoice.lines.reduce((sum, line) => sum + lineGross(line), 0));
}

export function totalNet(invoice: InvoiceTruth): number {
  return round2(invoice.lines.reduce((sum, line) => sum + lineNet(line), 0));
}

function digitsOf(random: () => number, count: number): string {
  let text = "";
  for (let index = 0; index < count; index += 1) text += String(Math.floor(random() * 10));
  return text;
}

/** An IČO with a valid check digit. */
export function makeIco(random: () => number): string {
  for (;;) {
    const body = `${1 + Math.floor(random() * 9)}${digitsOf(random, 6)}`;
    let sum = 0;
    for (let index = 0; index < 7; index += 1) sum += Number(body[index]) * (8 - index);
    const check = (11 - (sum % 11)) % 10;
    return `${body}${check}`;
  }
}

const ACCOUNT_WEIGHTS = [6, 3, 7, 9, 10, 5, 8, 4, 2, 1];

/** A Czech account number (10 digits) whose mod-11 check holds. */
function makeAccountNumber(random: () => number): string {
  for (;;) {
    const body = `${1 + Math.floor(random() * 9)}${digitsOf(random, 8)}`;
    let sum = 0;
    for (let index = 0; index < 9; index += 1) sum += Number(body[index]) * (ACCOUNT_WEIGHTS[index] as number);
    const last = (11 - (sum % 11)) % 11;
    if (last < 10) return `${body}${last}`;
  }
}

function ibanCheck(country: string, bban: string): string {
  const numeric = `${bban}${country}00`.replace(/[A-Z]/g, (letter) => String(letter.charCodeAt(0) - 55));
  let rest = 0;
  for (const digit of numeric) rest = (rest * 10 + Number(digit)) % 97;
  return String(98 - rest).padStart(2, "0");
}

const CZ_BANKS = ["0800", "0100", "0300", "2010", "0600", "5500"];

function makeCzechBank(random: () => number): { iban: string; bankAccount: string } {
  const bank = CZ_BANKS[Math.floor(random() * CZ_BANKS.length)] as string;
  const number = makeAccountNumber(random);
  const bban = `${bank}000000${number}`;
  return { iban: `CZ${ibanCheck("CZ", bban)}${bban}`, bankAccount: `${number}/${bank}` };
}

function makeGermanIban(random: () => number): string {
  const bban = `${digitsOf(random, 8)}${digitsOf(random, 10)}`;
  return `DE${ibanCheck("DE", bban)}${bban}`;
}

// Names in Latin-1 only: the standard PDF fonts cannot draw č or ř, and the ground truth must be what is printed.
const CZ_NAMES = ["Novák Stavby s.r.o.", "Alfa Servis s.r.o.", "Zelená Energie a.s.", "Bílý Kámen s.r.o.", "Modrá Logistika s.r.o."];
const DE_NAMES = ["Müller Technik GmbH", "Schneider Logistik GmbH", "Becker Software AG", "Weber Bau GmbH"];
const CZ_STREETS = ["Vinohradská 12", "Husova 5", "Palackého 101", "Lidická 44"];
const DE_STREETS = ["Hauptstraße 7", "Bahnhofstraße 21", "Gartenweg 3"];
const ACTIVITIES = {
  cs: ["Servisní práce", "Konzultace", "Licence softwaru", "Doprava materiálu", "Montáž", "Údržba serveru"],
  en: ["Consulting services", "Software licence", "Transport", "Installation", "Server maintenance", "Training"],
  de: ["Wartung", "Beratung", "Softwarelizenz", "Transport", "Montage", "Schulung"],
};

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)] as T;
}

function isoDay(base: number, days: number): string {
  return new Date(base + days * 86_400_000).toISOString().slice(0, 10);
}

/** Invoice number `index` of a deterministic series: Czech and German suppliers, CZK and EUR, 1–5 lines. */
export function makeInvoice(index: number, language: "cs" | "en" | "de" = "cs"): InvoiceTruth {
  const random = seededRandom(1_000 + index * 7919);
  const german = language === "de";
  const ico = makeIco(random);
  let supplier: Supplier;
  if (german) {
    supplier = {
      name: pick(random, DE_NAMES),
      country: "DE",
      taxId: `DE${1 + Math.floor(random() * 9)}${digitsOf(random, 8)}`,
      registerId: `HRB ${1000 + Math.floor(random() * 90000)}`,
      iban: makeGermanIban(random),
      street: pick(random, DE_STREETS),
      city: "Berlin",
      zip: `10${digitsOf(random, 3)}`,
    };
  } else {
    const bank = makeCzechBank(random);
    supplier = {
      name: pick(random, CZ_NAMES),
      country: "CZ",
      taxId: `CZ${ico}`,
      registerId: ico,
      iban: bank.iban,
      bankAccount: bank.bankAccount,
      street: pick(random, CZ_STREETS),
      city: "Praha",
      zip: `1${digitsOf(random, 2)} 00`,
    };
  }
  const buyerIco = makeIco(random);
  const base = Date.UTC(2025, 0, 1) + Math.floor(random() * 300) * 86_400_000;
  const lineCount = 1 + Math.floor(random() * 5);
  const activities = ACTIVITIES[language];
  const lines: InvoiceLine[] = [];
  for (let line = 0; line < lineCount; line += 1) {
    lines.push({
      activity: activities[(index + line) % activities.length] as string,
      quantity: 1 + Math.floor(random() * 10),
      unitPrice: round2(50 + random() * (german ? 900 : 19_000)),
      vatRate: german ? pick(random, [19, 7]) : pick(random, [21, 12, 21]),
    });
  }
  const year = new Date(base).getUTCFullYear();
  const sequence = String(100 + index).padStart(4, "0");
  return {
    invoiceId: german ? `RE-${year}-${sequence}` : `FV${year}${sequence}`,
    issueDate: isoDay(base, 0),
    dueDate: isoDay(base, 14 + Math.floor(random() * 3) * 7),
    currency: german ? "EUR" : random() < 0.8 ? "CZK" : "EUR",
    variableSymbol: `${year}${sequence}`,
    supplier,
    buyer: {
      name: "Odběratel Test s.r.o.".replace("ě", "e"),
      taxId: `CZ${buyerIco}`,
      registerId: buyerIco,
      street: "Náměstí Míru 1".replace("ě", "e"),
      city: "Brno",
      zip: "602 00",
    },
    lines,
  };
}

/** What a perfect extraction of `invoice` answers, in the engine's normalized forms. */
export function expectedExtraction(invoice: InvoiceTruth): ExpectedExtraction {
  const fields: Record<string, string> = {
    invoice_id: invoice.invoiceId,
    issue_date: invoice.issueDate,
    due_date: invoice.dueDate,
    total_due: totalDue(invoice).toFixed(2),
    currency: invoice.currency,
    iban: invoice.supplier.iban,
    variable_symbol: invoice.variableSymbol,
    supplier_name: invoice.supplier.name,
    supplier_tax_id: invoice.supplier.taxId,
    supplier_register_id: invoice.supplier.registerId,
  };
  if (invoice.supplier.bankAccount) fields.bank_account = invoice.supplier.bankAccount;
  const rows = invoice.lines.map((line) => ({
    activity: line.activity,
    quantity: String(line.quantity),
    unit_price: line.unitPrice.toFixed(2),
    vat_rate: String(line.vatRate),
    total_incl_tax: lineGross(line).toFixed(2),
  }));
  return { fields, rows };
}
