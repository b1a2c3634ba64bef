import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { AFRelationship, PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from "pdf-lib";
import { type InvoiceTruth, lineGross, totalDue } from "./invoice-data.js";

export type Language = "cs" | "en" | "de";
export type Layout = "columns" | "stacked" | "compact";

const LABELS = {
  cs: {
    title: "Faktura - daňový doklad",
    invoiceId: "Číslo faktury:",
    issueDate: "Datum vystavení:",
    dueDate: "Datum splatnosti:",
    reference: "Variabilní symbol:",
    account: "Číslo účtu:",
    supplier: "Dodavatel",
    buyer: "Odběratel",
    registerId: "IČO:",
    taxId: "DIČ:",
    columns: ["Popis", "Množství", "Cena za MJ", "DPH %", "Celkem s DPH"],
    total: "Celkem k úhradě:",
  },
  en: {
    title: "Invoice",
    invoiceId: "Invoice No.:",
    issueDate: "Issue date:",
    dueDate: "Due date:",
    reference: "Payment reference:",
    account: "Account number:",
    supplier: "Supplier",
    buyer: "Customer",
    registerId: "Company ID:",
    taxId: "VAT ID:",
    columns: ["Description", "Qty", "Unit price", "VAT %", "Total incl. VAT"],
    total: "Total due:",
  },
  de: {
    title: "Rechnung",
    invoiceId: "Rechnungsnummer:",
    issueDate: "Rechnungsdatum:",
    dueDate: "Fällig am:",
    reference: "Verwendungszweck:",
    account: "Kontonummer:",
    supplier: "Lieferant",
    buyer: "Kunde",
    registerId: "Handelsregister:",
    taxId: "USt-IdNr.:",
    columns: ["Beschreibung", "Menge", "Einzelpreis", "MwSt %", "Gesamt brutto"],
    total: "Zu zahlen:",
  },
} as const;

const MONTHS_EN = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

function formatDate(iso: string, language: Language, layout: Layout): string {
  const [year, month, day] = iso.split("-").map(Number) as [number, number, number];
  if (language === "cs")
    return layout === "columns" ? `${day}. ${month}. ${year}` : `${String(day).padStart(2, "0")}.${String(month).padStart(2, "0")}.${year}`;
  if (language === "de") return `${String(day).padStart(2, "0")}.${String(month).padStart(2, "0")}.${year}`;
  return layout === "stacked" ? `${day} ${MONTHS_EN[month - 1]} ${year}` : iso;
}

function formatMoney(value: number, language: Language): string {
  const [integer, fraction] = value.toFixed(2).split(".") as [string, string];
  const group = language === "cs" ? " " : language === "de" ? "." : ",";
  const decimal = language === "en" ? "." : ",";
  return `${integer.replace(/\B(?=(\d{3})+(?!\d))/g, group)}${decimal}${fraction}`;
}

function currencyMark(currency: string, language: Language): string {
  if (currency === "CZK") return language === "cs" ? "Kč" : "CZK";
  return language === "de" ? "€" : "EUR";
}

const groupIban = (iban: string) => iban.replace(/(.{4})/g, "$1 ").trim();

const LATIN1_EXTRA = new Set([..."ŠšŽžŒœŸ€"]);
/** The standard PDF fonts draw WinAnsi only: letters beyond it lose their accents (Č → C), as many real PDFs do. */
function drawable(text: string): string {
  return [...text]
    .map((char) => (char.charCodeAt(0) <= 0xff || LATIN1_EXTRA.has(char) ? char : char.normalize("NFD").replace(/[\u0300-\u036f]/g, "")))
    .join("");
}

class Canvas {
  constructor(
    private readonly page: PDFPage,
    private readonly regular: PDFFont,
    private readonly bold: PDFFont,
  ) {}
  text(value: string, x: number, top: number, options: { size?: number; bold?: boolean; right?: boolean } = {}): void {
    const size = options.size ?? 10;
    const font = options.bold ? this.bold : this.regular;
    const safe = drawable(value);
    const width = font.widthOfTextAtSize(safe, size);
    this.page.drawText(safe, { x: options.right ? x - width : x, y: 842 - top - size, size, font, color: rgb(0, 0, 0) });
  }
  rule(top: number): void {
    this.page.drawLine({ start: { x: 50, y: 842 - top }, end: { x: 545, y: 842 - top }, thickness: 0.5 });
  }
}

function drawTable(canvas: Canvas, invoice: InvoiceTruth, language: Language, top: number): number {
  const labels = LABELS[language];
  const columns = [50, 300, 390, 460, 545];
  labels.columns.forEach((label, index) => {
    canvas.text(label, columns[index] as number, top, { bold: true, right: index >= 1 });
  });
  canvas.rule(top + 14);
  let y = top + 22;
  for (const line of invoice.lines) {
    canvas.text(line.activity, columns[0] as number, y);
    canvas.text(String(line.quantity), columns[1] as number, y, { right: true });
    canvas.text(formatMoney(line.unitPrice, language), columns[2] as number, y, { right: true });
    canvas.text(`${line.vatRate} %`, columns[3] as number, y, { right: true });
    canvas.text(formatMoney(lineGross(line), language), columns[4] as number, y, { right: true });
    y += 16;
  }
  canvas.rule(y + 2);
  return y + 12;
}

function party(
  canvas: Canvas,
  language: Language,
  heading: string,
  who: { name: string; street: string; zip: string; city: string; registerId: string; taxId: string },
  x: number,
  top: number,
  compact: boolean,
): void {
  const labels = LABELS[language];
  if (compact) canvas.text(`${heading}: ${who.name}`, x, top, { bold: true });
  else {
    canvas.text(heading, x, top, { bold: true });
    canvas.text(who.name, x, top + 16);
  }
  canvas.text(who.street, x, top + 30);
  canvas.text(`${who.zip} ${who.city}`, x, top + 44);
  canvas.text(`${labels.registerId} ${who.registerId}`, x, top + 58);
  canvas.text(`${labels.taxId} ${who.taxId}`, x, top + 72);
}

/** Renders one invoice as a one-page PDF with a text layer, in one of three layouts and three languages. */
export async function invoicePdf(invoice: InvoiceTruth, language: Language, layout: Layout): Promise<PDFDocument> {
  const document = await PDFDocument.create();
  document.setCreationDate(new Date(Date.UTC(2025, 0, 1)));
  document.setModificationDate(new Date(Date.UTC(2025, 0, 1)));
  const page = document.addPage([595, 842]);
  const canvas = new Canvas(page, await document.embedFont(StandardFonts.Helvetica), await document.embedFont(StandardFonts.HelveticaBold));
  const labels = LABELS[language];
  const supplier = invoice.supplier;
  const mark = currencyMark(invoice.currency, language);
  const meta: [string, string][] = [
    [labels.invoiceId, invoice.invoiceId],
    [labels.issueDate, formatDate(invoice.issueDate, language, layout)],
    [labels.dueDate, formatDate(invoice.dueDate, language, layout)],
    [labels.reference, invoice.variableSymbol],
  ];
  const payment: [string, string][] = [
    ...(supplier.bankAccount ? ([[labels.account, supplier.bankAccount]] as [string, string][]) : []),
    ["IBAN:", groupIban(supplier.iban)],
  ];
  const total = `${formatMoney(totalDue(invoice), language)} ${mark}`;

  if (layout === "columns") {
    canvas.text(labels.title, 50, 40, { size: 18, bold: true });
    meta.forEach(([label, value], index) => {
      canvas.text(label, 320, 40 + index * 16);
      canvas.text(value, 440, 40 + index * 16);
    });
    party(canvas, language, labels.supplier, supplier, 50, 130, false);
    party(canvas, language, labels.buyer, invoice.buyer, 320, 130, false);
    payment.forEach(([label, value], index) => {
      canvas.text(label, 50, 240 + index * 16);
      canvas.text(value, 160, 240 + index * 16);
    });
    const after = drawTable(canvas, invoice, language, 300);
    canvas.text(labels.total, 320, after, { bold: true });
    canvas.text(total, 545, after, { bold: true, right: true });
  } else if (layout === "stacked") {
    canvas.text(labels.title, 50, 40, { size: 18, bold: true });
    party(canvas, language, labels.supplier, supplier, 50, 80, false);
    party(canvas, language, labels.buyer, invoice.buyer, 50, 180, false);
    meta.forEach(([label, value], index) => {
      canvas.text(label.replace(":", ""), 50 + index * 125, 280, { bold: true });
      canvas.text(value, 50 + index * 125, 296);
    });
    payment.forEach(([label, value], index) => {
      canvas.text(label.replace(":", ""), 50 + index * 200, 330, { bold: true });
      canvas.text(value, 50 + index * 200, 346);
    });
    const after = drawTable(canvas, invoice, language, 390);
    canvas.text(labels.total.replace(":", ""), 390, after, { bold: true, right: true });
    canvas.text(total, 545, after, { bold: true, right: true });
  } else {
    canvas.text(`${labels.title} ${invoice.invoiceId}`, 50, 40, { size: 16, bold: true });
    party(canvas, language, labels.supplier, supplier, 50, 80, true);
    party(canvas, language, labels.buyer, invoice.buyer, 320, 80, true);
    meta.forEach(([label, value], index) => {
      canvas.text(`${label} ${value}`, 50, 180 + index * 14);
    });
    payment.forEach(([label, value], index) => {
      canvas.text(`${label} ${value}`, 320, 180 + index * 14);
    });
    const after = drawTable(canvas, invoice, language, 260);
    canvas.text(`${labels.total} ${total}`, 545, after, { bold: true, right: true });
  }
  return document;
}

/** The invoice as a PDF/A-3-style file with its e-invoice XML attached (Factur-X / ZUGFeRD, or ISDOC). */
export async function pdfWithAttachment(
  invoice: InvoiceTruth,
  language: Language,
  attachment: { name: string; xml: Uint8Array; mimeType: string },
): Promise<Uint8Array> {
  const document = await invoicePdf(invoice, language, "columns");
  await document.attach(attachment.xml, attachment.name, {
    mimeType: attachment.mimeType,
    description: "Invoice data",
    creationDate: new Date(Date.UTC(2025, 0, 1)),
    modificationDate: new Date(Date.UTC(2025, 0, 1)),
    afRelationship: AFRelationship.Alternative,
  });
  return document.save({ useObjectStreams: false });
}

const run = promisify(execFile);

/** Whether pdftoppm is on PATH (needed to make scans). */
export async function canRasterize(): Promise<boolean> {
  try {
    await run("pdftoppm", ["-v"], { timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}

/** A scan: the PDF's first page rasterized (PNG, grey) and, optionally, wrapped into a PDF with no text layer. */
export async function rasterize(pdf: Uint8Array, dpi = 150): Promise<{ png: Uint8Array; pdf: Uint8Array }> {
  const directory = await mkdtemp(path.join(os.tmpdir(), "docex-corpus-"));
  try {
    await writeFile(path.join(directory, "in.pdf"), pdf);
    await run("pdftoppm", [
      "-r",
      String(dpi),
      "-gray",
      "-png",
      "-singlefile",
      "-f",
      "1",
      "-l",
      "1",
      path.join(directory, "in.pdf"),
      path.join(directory, "page"),
    ]);
    const png = new Uint8Array(await readFile(path.join(directory, "page.png")));
    const document = await PDFDocument.create();
    const image = await document.embedPng(png);
    const page = document.addPage([595, 842]);
    page.drawImage(image, { x: 0, y: 0, width: 595, height: 842 });
    return { png, pdf: await document.save() };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
