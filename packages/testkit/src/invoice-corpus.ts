import { crc32, createDeflate, deflateSync } from "node:zlib";
import { zipSync } from "fflate";
import { PDFDocument, PDFHexString, PDFName, PDFRawStream, PDFString, StandardFonts } from "pdf-lib";
import { ciiXml, isdocXml, isdocxArchive, ublXml } from "./einvoice-xml.js";
import { type ExpectedExtraction, expectedExtraction, type InvoiceTruth, makeInvoice } from "./invoice-data.js";
import { canRasterize, invoicePdf, type Language, type Layout, pdfWithAttachment, rasterize } from "./invoice-pdf.js";

export * from "./einvoice-xml.js";
export * from "./invoice-data.js";
export * from "./invoice-pdf.js";

/** The corpus's formats; e-invoices are read exactly, PDFs from their text layer, scans by OCR. */
export type CorpusFormat =
  | "isdoc"
  | "isdocx"
  | "ubl"
  | "cii"
  | "xrechnung"
  | "facturx"
  | "pdf_isdoc"
  | "pdf_text"
  | "scan_pdf"
  | "scan_png";

export const EINVOICE_FORMATS: CorpusFormat[] = ["isdoc", "isdocx", "ubl", "cii", "xrechnung", "facturx", "pdf_isdoc"];

export interface CorpusDocument {
  name: string;
  format: CorpusFormat;
  language: Language;
  layout?: Layout;
  contentType: string;
  bytes: Uint8Array;
  truth: InvoiceTruth;
  expected: ExpectedExtraction;
}

export interface CorpusOptions {
  /** Invoices per e-invoice format. */
  einvoices?: number;
  /** Text PDFs: each is one language × layout, cycling through all nine. */
  textPdfs?: number;
  /** Scans (half PNG, half image-only PDF); made only where pdftoppm is on PATH. */
  scans?: number;
  /** First invoice index, so several corpora do not repeat each other. */
  offset?: number;
}

const LANGUAGES: Language[] = ["cs", "en", "de"];
const LAYOUTS: Layout[] = ["columns", "stacked", "compact"];

function entry(
  truth: InvoiceTruth,
  format: CorpusFormat,
  bytes: Uint8Array,
  contentType: string,
  language: Language,
  layout?: Layout,
): CorpusDocument {
  const extension =
    { isdoc: "isdoc", isdocx: "isdocx", ubl: "xml", cii: "xml", xrechnung: "xml", scan_png: "png" }[format as string] ?? "pdf";
  return {
    name: `${format}-${truth.invoiceId}${layout ? `-${language}-${layout}` : ""}.${extension}`,
    format,
    language,
    ...(layout ? { layout } : {}),
    contentType,
    bytes,
    truth,
    expected: expectedExtraction(truth),
  };
}

/**
 * Invoices with ground truth in every format: e-invoices generated from the same data (ISDOC, ISDOCX, UBL
 * / PEPPOL, CII, XRechnung, Factur-X and PDF with ISDOC), PDFs in three layouts and three languages, and
 * scans of them rasterized for OCR. Deterministic: the same options give the same bytes.
 */
export async function buildInvoiceCorpus(options: CorpusOptions = {}): Promise<CorpusDocument[]> {
  const { einvoices = 3, textPdfs = 9, scans = 0, offset = 0 } = options;
  const documents: CorpusDocument[] = [];
  let index = offset;
  for (let count = 0; count < einvoices; count += 1) {
    const cs = makeInvoice(index++, "cs");
    const de = makeInvoice(index++, "de");
    documents.push(entry(cs, "isdoc", isdocXml(cs), "application/xml", "cs"));
    documents.push(entry(cs, "isdocx", isdocxArchive(cs), "application/zip", "cs"));
    documents.push(entry(count % 2 ? de : cs, "ubl", ublXml(count % 2 ? de : cs), "application/xml", count % 2 ? "de" : "cs"));
    documents.push(entry(cs, "cii", ciiXml(cs), "application/xml", "cs"));
    documents.push(entry(de, "xrechnung", ciiXml(de, "xrechnung"), "application/xml", "de"));
    documents.push(
      entry(
        de,
        "facturx",
        await pdfWithAttachment(de, "de", { name: "factur-x.xml", xml: ciiXml(de), mimeType: "text/xml" }),
        "application/pdf",
        "de",
      ),
    );
    documents.push(
      entry(
        cs,
        "pdf_isdoc",
        await pdfWithAttachment(cs, "cs", { name: "invoice.isdoc", xml: isdocXml(cs), mimeType: "application/xml" }),
        "application/pdf",
        "cs",
      ),
    );
  }
  const rendered: { truth: InvoiceTruth; language: Language; layout: Layout; pdf: Uint8Array }[] = [];
  for (let count = 0; count < textPdfs; count += 1) {
    const language = LANGUAGES[count % 3] as Language;
    const layout = LAYOUTS[Math.floor(count / 3) % 3] as Layout;
    const truth = makeInvoice(index++, language);
    const pdf = await (await invoicePdf(truth, language, layout)).save();
    rendered.push({ truth, language, layout, pdf });
    documents.push(entry(truth, "pdf_text", pdf, "application/pdf", language, layout));
  }
  if (scans > 0 && (await canRasterize())) {
    for (let count = 0; count < scans; count += 1) {
      const language = LANGUAGES[count % 3] as Language;
      const layout = LAYOUTS[Math.floor(count / 3) % 3] as Layout;
      const truth = makeInvoice(index++, language);
      const scan = await rasterize(await (await invoicePdf(truth, language, layout)).save(), 200);
      documents.push(
        count % 2 === 0
          ? entry(truth, "scan_png", scan.png, "image/png", language, layout)
          : entry(truth, "scan_pdf", scan.pdf, "application/pdf", language, layout),
      );
    }
  }
  return documents;
}

export interface BadFile {
  name: string;
  bytes: Uint8Array;
  /** A part of the message the engine must answer with (case-insensitive). */
  message: RegExp;
}

async function pdfBomb(): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const page = document.addPage([595, 842]);
  // 256 MiB of drawing operators that deflate to well under a megabyte.
  const chunk = Buffer.alloc(1024 * 1024, "0 0 m 1 1 l S\n");
  const parts: Buffer[] = [];
  for (let index = 0; index < 256; index += 1) parts.push(chunk);
  const compressed = deflateSync(Buffer.concat(parts), { level: 6 });
  const stream = PDFRawStream.of(document.context.obj({ Filter: "FlateDecode", Length: compressed.length }), compressed);
  page.node.set(PDFName.of("Contents"), document.context.register(stream));
  return document.save();
}

async function manyPages(count: number): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (let index = 0; index < count; index += 1) {
    const page = document.addPage([200, 200]);
    if (index === 0) page.drawText("Invoice No.: X-1 page one of many", { x: 10, y: 100, size: 8, font });
  }
  return document.save();
}

/** A PDF whose Standard security handler wants a user password nobody has. */
function encryptedPdf(): Uint8Array {
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
    `<< /Filter /Standard /V 1 /R 2 /O <${"a1".repeat(32)}> /U <${"b2".repeat(32)}> /P -44 >>`,
  ];
  let body = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("")}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 4 0 R /ID [<${"c3".repeat(16)}> <${"c3".repeat(16)}>] >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(body);
}

function zipBomb(): Uint8Array {
  return zipSync({ "invoice.isdoc": [new Uint8Array(64 * 1024 * 1024), { level: 9 }], "manifest.xml": new Uint8Array(10) });
}

const encode = (text: string) => new TextEncoder().encode(text);

/** Files that must not hurt the reader: each ends in a clear message within time and memory bounds. */
export async function badInvoiceFiles(): Promise<BadFile[]> {
  return [
    {
      name: "corrupt.pdf",
      bytes: encode("%PDF-1.7\n1 0 obj <<<< garbage\n%%EOF"),
      message: /PDF cannot be read|could not be read|no text/i,
    },
    { name: "encrypted.pdf", bytes: encryptedPdf(), message: /encrypted/i },
    { name: "bomb.pdf", bytes: await pdfBomb(), message: /memory|longer than|too long|could not be read|no text/i },
    { name: "10000-pages.pdf", bytes: await manyPages(10_000), message: /10000 pages; only the first/i },
    {
      name: "xxe.isdoc",
      bytes: encode(
        `<?xml version="1.0"?>\n<!DOCTYPE Invoice [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<Invoice xmlns="http://isdoc.cz/namespace/2013"><ID>&xxe;</ID></Invoice>`,
      ),
      message: /DOCTYPE/i,
    },
    {
      name: "billion-laughs.xml",
      bytes: encode(
        `<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>\n<Invoice xmlns="http://isdoc.cz/namespace/2013"><ID>&lol3;</ID></Invoice>`,
      ),
      message: /DOCTYPE/i,
    },
    { name: "zip-bomb.isdocx", bytes: zipBomb(), message: /zip bomb|larger than/i },
  ];
}

/** `bytes` zero bytes deflated, made a mebibyte at a time (the whole is never held). */
async function deflatedZeros(bytes: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  deflate.on("data", (part: Buffer) => parts.push(part));
  const done = new Promise<void>((resolve, reject) => {
    deflate.on("end", resolve);
    deflate.on("error", reject);
  });
  const chunk = Buffer.alloc(1024 * 1024);
  for (let written = 0; written < bytes; written += chunk.length) {
    if (!deflate.write(chunk)) await new Promise((resolve) => deflate.once("drain", resolve));
  }
  deflate.end();
  await done;
  return Buffer.concat(parts);
}

/**
 * A one-page PDF whose embedded `factur-x.xml` inflates to `inflatedBytes` (1 GiB by default: about 1 MiB of file),
 * the decompression bomb of security round 3: a reader that inflates attachments before looking at them pays it all.
 */
export async function attachmentBombPdf(inflatedBytes = 1024 * 1024 * 1024): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  document.addPage([595, 842]).drawText("Invoice No.: BOMB-1 with an embedded file", { x: 40, y: 780, size: 10, font });
  const compressed = await deflatedZeros(inflatedBytes);
  const context = document.context;
  const file = context.register(
    PDFRawStream.of(
      context.obj({ Type: "EmbeddedFile", Subtype: "text/xml", Filter: "FlateDecode", Length: compressed.length }),
      compressed,
    ),
  );
  const spec = context.register(
    context.obj({
      Type: "Filespec",
      F: PDFString.of("factur-x.xml"),
      UF: PDFHexString.fromText("factur-x.xml"),
      AFRelationship: "Data",
      EF: { F: file, UF: file },
    }),
  );
  document.catalog.set(PDFName.of("Names"), context.obj({ EmbeddedFiles: context.obj({ Names: [PDFString.of("factur-x.xml"), spec] }) }));
  return document.save({ useObjectStreams: false });
}

/** A 1-page PDF without text whose page is `inches` inches square: OCR at 200 dpi would rasterize (200 × inches)² pixels. */
export async function hugePagePdf(inches = 200): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  document.addPage([inches * 72, inches * 72]);
  return document.save();
}

/** A PNG whose header declares `width` × `height` pixels (a decoder would allocate for all of them), with one tiny IDAT. */
export function hugeImagePng(width = 100_000, height = 100_000): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const typed = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(typed));
    return Buffer.concat([length, typed, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(0, 9); // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.alloc(1024))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** About `megabytes` MB of UBL whose elements carry thousands of attributes each (took a parser 14 s and 386 MB at 7 MB). */
export function attributeHeavyXml(megabytes = 7): Uint8Array {
  const attributes = Array.from({ length: 1_000 }, (_, index) => `a${index}="${index}"`).join(" ");
  const element = `<cbc:Note ${attributes}>x</cbc:Note>\n`;
  const count = Math.ceil((megabytes * 1024 * 1024) / element.length);
  return new TextEncoder().encode(
    `<?xml version="1.0"?>\n<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">\n${element.repeat(count)}</Invoice>\n`,
  );
}
