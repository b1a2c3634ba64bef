import { MULTILINGUAL_INVOICES, type MultilingualInvoice, placedPdf } from "@docex/testkit/multilingual-invoices";
import { expect } from "chai";
import { type Evidence, featuresOf, probabilityOf } from "../src/engine/confidence.js";
import { CONFIDENCE_MODEL } from "../src/engine/confidence-model.js";
import { extractInvoice } from "../src/engine/engine.js";
import { wordsOfTsv } from "../src/engine/ocr.js";
import { linesOf, type TextItem } from "../src/engine/page-text.js";
import { openPdf } from "../src/engine/pdf.js";
import { fieldsFromLines } from "../src/engine/text-fields.js";
import type { ExtractionResult, FieldPosition } from "../src/engine/types.js";
import { normalizeDate, normalizeVatId, parseAmount, vatChecksumHolds } from "../src/engine/validators.js";

/** The words under a field's box, read back from the PDF's text layer. */
async function wordsUnder(bytes: Uint8Array, position: FieldPosition | undefined): Promise<string> {
  expect(position, "the field has a position").to.not.equal(undefined);
  const { page, box } = position as FieldPosition;
  const pdf = await openPdf(bytes);
  try {
    const items = (await pdf.text(page)).filter((item) => item.page === page);
    const size = (await pdf.pageSizes(page))[page - 1] as { width: number; height: number };
    const [left, top, right, bottom] = [box[0] * size.width, box[1] * size.height, box[2] * size.width, box[3] * size.height];
    // Characters of an item whose centre falls inside the box (an item is split evenly into its characters).
    let text = "";
    for (const item of items) {
      const middle = item.y + item.height / 2;
      if (middle < top || middle > bottom) continue;
      const step = item.width / item.text.length;
      [...item.text].forEach((char, index) => {
        const centre = item.x + step * (index + 0.5);
        if (centre >= left - 0.5 && centre <= right + 0.5) text += char;
      });
    }
    return text;
  } finally {
    await pdf.close();
  }
}

const value = (result: ExtractionResult, key: string) => (result.fields as Record<string, { value: string } | undefined>)[key]?.value;

type Row = [text: string, x: number, y: number];
/** Text items on page 1 (A4 points), each 10 pt high, from [text, x, y]; with a word confidence, OCR's words. */
const placed = (rows: Row[], confidence?: number): TextItem[] =>
  rows.map(([text, x, y]) => ({
    text,
    x,
    y,
    width: text.length * 5,
    height: 10,
    page: 1,
    ...(confidence === undefined ? {} : { confidence }),
  }));
/** What the text reader reads from such rows. */
const readRows = (rows: Row[], source: "builtin:pdf_text" | "builtin:ocr" = "builtin:pdf_text") =>
  fieldsFromLines(linesOf(placed(rows, source === "builtin:ocr" ? 95 : undefined)), source);

const layoutOf = (language: MultilingualInvoice["language"]) =>
  MULTILINGUAL_INVOICES.find((invoice) => invoice.language === language) as MultilingualInvoice;

/** The values read for the keys `expected` names. */
const valuesOf = (result: ExtractionResult, expected: Record<string, string>) =>
  Object.fromEntries(Object.keys(expected).map((key) => [key, value(result, key)]));

describe("extraction engine: typed parsers", () => {
  it("reads numeric dates day or month first as told, and month names in fr, nl, pl, cs, es, it", () => {
    expect(normalizeDate("03/11/2017")).to.equal("2017-11-03");
    expect(normalizeDate("03/11/2017", "mdy")).to.equal("2017-03-11");
    expect(normalizeDate("11/17/2017", "mdy")).to.equal("2017-11-17");
    expect(normalizeDate("11/17/2017")).to.equal(undefined);
    expect(normalizeDate("05-03-2018")).to.equal("2018-03-05");
    expect(normalizeDate("5 novembre 2017")).to.equal("2017-11-05");
    expect(normalizeDate("14 maart 2026")).to.equal("2026-03-14");
    expect(normalizeDate("5 marca 2026")).to.equal("2026-03-05");
    expect(normalizeDate("5. března 2026")).to.equal("2026-03-05");
    expect(normalizeDate("3 de febrero de 2026")).to.equal("2026-02-03");
    expect(normalizeDate("12 dicembre 2025")).to.equal("2025-12-12");
    expect(normalizeDate("31.02.2026")).to.equal(undefined);
  });

  it("reads amounts with either separator and grouped thousands, refuses ambiguous groups", () => {
    expect(parseAmount("1 250,00 €")).to.equal(1250);
    expect(parseAmount("1.250,00")).to.equal(1250);
    expect(parseAmount("1,250.00")).to.equal(1250);
    expect(parseAmount("$1,080.00")).to.equal(1080);
    expect(parseAmount("12,34,56")).to.equal(undefined);
  });

  it("checks VAT ids by their country's check digit where one is defined: published ids pass, one changed digit fails", () => {
    const published = [
      "ATU13585627",
      "BE0403170701",
      "DE136695976",
      "DK13585628",
      "FI20774740",
      "FR40303265045",
      "IT00743110157",
      "LU26375245",
      "NL004495445B01",
      "PL5260250274",
    ];
    for (const id of published) {
      expect(normalizeVatId(id), id).to.equal(id);
      expect(vatChecksumHolds(id), id).to.equal(true);
      // The check digit: the last one, or before "B01" in a Dutch id.
      const at = id.startsWith("NL") ? 10 : id.length - 1;
      const changed = `${id.slice(0, at)}${(Number(id[at]) + 1) % 10}${id.slice(at + 1)}`;
      expect(vatChecksumHolds(changed), changed).to.equal(false);
    }
    expect(vatChecksumHolds("ESB12345678")).to.equal(undefined);
    expect(normalizeVatId("143/815/08150")).to.equal(undefined);
  });
});

describe("extraction engine: labels and parties on layouts nobody wrote the engine for", () => {
  it("fr: inline 'Facture n° … du …', client block beside the supplier's, the amount to pay after a deposit", async () => {
    const bytes = await placedPdf(layoutOf("fr").placed);
    const result = await extractInvoice({ bytes });
    expect(valuesOf(result, layoutOf("fr").expected)).to.deep.equal(layoutOf("fr").expected);
    expect(result.lineItems?.rows).to.have.length(1);
    // Base and tax agree with a total: trusted more than the same label and place without that agreement.
    const tax = result.fields.total_tax?.evidence as Evidence;
    expect(tax).to.include({ consistent: true });
    const probability = (evidence: Evidence) =>
      probabilityOf(featuresOf("total_tax", "builtin:pdf_text", evidence), CONFIDENCE_MODEL.weights);
    expect(probability(tax)).to.be.greaterThan(probability({ ...tax, consistent: false }));
    expect(await wordsUnder(bytes, result.fields.invoice_id?.position)).to.equal("F-2026-114");
    expect(await wordsUnder(bytes, result.fields.total_due?.position)).to.contain("1 000,00");
  });

  it("nl: labels left of the values, a buyer's VAT id and IBAN in the buyer's block never the supplier's", async () => {
    const bytes = await placedPdf(layoutOf("nl").placed);
    const result = await extractInvoice({ bytes });
    expect(valuesOf(result, layoutOf("nl").expected)).to.deep.equal(layoutOf("nl").expected);
    expect(await wordsUnder(bytes, result.fields.iban?.position)).to.contain("NL91 ABNA 0417 1643 00");
  });

  it("pl: Sprzedawca / Nabywca stacked, values below their labels, PLN from the totals", async () => {
    const bytes = await placedPdf(layoutOf("pl").placed);
    const result = await extractInvoice({ bytes });
    expect(valuesOf(result, layoutOf("pl").expected)).to.deep.equal(layoutOf("pl").expected);
    expect(await wordsUnder(bytes, result.fields.due_date?.position)).to.equal("19.03.2026");
  });

  it("sk: Dodávateľ / Odberateľ, IČO, IČ DPH, variabilný symbol, Czech-style dates with spaces", async () => {
    const bytes = await placedPdf(layoutOf("sk").placed);
    const result = await extractInvoice({ bytes });
    expect(valuesOf(result, layoutOf("sk").expected)).to.deep.equal(layoutOf("sk").expected);
  });

  it("en (US): month-first dates when another date says so, Bill to, the balance due rather than a subtotal", async () => {
    const bytes = await placedPdf([
      ["Northwind Supplies Inc.", 40, 40, 14],
      ["INVOICE # 10-4471", 400, 40, 12],
      ["Invoice date: 03/04/2026", 400, 60],
      ["Payment due: 03/18/2026", 400, 74],
      ["Bill to", 40, 110],
      ["Contoso Ltd.", 40, 124],
      ["Subtotal", 360, 250],
      ["$1,000.00", 480, 250],
      ["Sales tax", 360, 264],
      ["$80.00", 480, 264],
      ["Total", 360, 278],
      ["$1,080.00", 480, 278],
      ["Balance due", 360, 292],
      ["$1,080.00", 480, 292],
    ]);
    const result = await extractInvoice({ bytes });
    expect(value(result, "invoice_id")).to.equal("10-4471");
    expect(value(result, "issue_date")).to.equal("2026-03-04");
    expect(value(result, "due_date")).to.equal("2026-03-18");
    expect(value(result, "buyer_name")).to.equal("Contoso Ltd.");
    expect(value(result, "supplier_name")).to.equal("Northwind Supplies Inc.");
    expect(value(result, "total_due")).to.equal("1080.00");
    expect(value(result, "total_without_tax")).to.equal("1000.00");
    expect(value(result, "currency")).to.equal("USD");
  });

  it("never takes a label for a value: a party block of 'Nummer:' and 'Name:' lines gives the name after 'Name:'", () => {
    const result = readRows([
      ["Verkäufer", 70, 100],
      ["Nummer:", 70, 118],
      ["731200", 261, 118],
      ["Name:", 70, 136],
      ["Nordlicht Werkzeuge GmbH", 261, 136],
      ["Käufer/Leistungsempfänger", 70, 190],
      ["Nummer:", 70, 208],
      ["KD-88412", 261, 208],
      ["Name:", 70, 226],
      ["Hafen Logistik AG", 261, 226],
    ]);
    expect(value(result, "supplier_name")).to.equal("Nordlicht Werkzeuge GmbH");
    expect(value(result, "buyer_name")).to.equal("Hafen Logistik AG");
  });

  const letterhead: Row[] = [
    ["Au Petit Four SARL", 110, 35],
    ["12 rue des Lilas, 75011 Paris", 110, 47],
    ["Facture FA-2024-0042", 30, 100],
    ["Date de facture", 30, 330],
    ["14/03/2024", 160, 330],
    ["Total TTC", 400, 760],
    ["120,00 €", 480, 760],
  ];

  it("takes the one address block without a heading as the buyer's, not a delivery address beside it nor a street", () => {
    const result = readRows([
      ...letterhead,
      ["Adresse de livraison", 37, 127],
      ["Entrepôt Nord", 37, 144],
      ["8 quai de Seine", 37, 156],
      ["93200 Saint-Denis", 37, 168],
      ["Boulangerie Martin", 326, 138],
      ["Claire Martin", 326, 150],
      ["35 rue de la République", 326, 163],
      ["69001 Lyon", 326, 176],
    ]);
    expect(value(result, "buyer_name")).to.equal("Boulangerie Martin");
    expect(result.fields.buyer_name?.evidence).to.deep.include({ label: "none", party: false });
    // A buyer guessed from where its block stands is less sure than the same block under a heading.
    const headed = readRows([
      ...letterhead,
      ["Client", 326, 124],
      ["Boulangerie Martin", 326, 138],
      ["Claire Martin", 326, 150],
      ["35 rue de la République", 326, 163],
      ["69001 Lyon", 326, 176],
    ]);
    expect(headed.fields.buyer_name?.evidence).to.deep.include({ party: true });
    expect(result.fields.buyer_name?.confidence ?? 100).to.be.below(headed.fields.buyer_name?.confidence ?? 0);
  });

  it("takes no buyer where two address blocks without a heading could each be it", () => {
    const result = readRows([
      ...letterhead,
      ["Boulangerie Martin", 37, 138],
      ["35 rue de la République", 37, 150],
      ["69001 Lyon", 37, 163],
      ["Pâtisserie Durand", 326, 138],
      ["4 place Bellecour", 326, 150],
      ["69002 Lyon", 326, 163],
    ]);
    expect(value(result, "buyer_name")).to.equal(undefined);
  });
});

describe("text reader: a value under its column's header", () => {
  it("reads a due date under 'Fälligkeit' in a row of headers, and not under a label whose neighbour is close by", () => {
    const table = readRows([
      ["Beschreibung", 40, 500],
      ["Fälligkeit", 420, 500],
      ["Teilzahlung", 520, 500],
      ["Der Rechnungsbetrag wurde bereits beglichen.", 40, 514],
      ["03.10.2018", 420, 514],
    ]);
    expect(value(table, "due_date")).to.equal("2018-10-03");
    // "Fälligkeit sofort": the word after the label is the answer, nothing below is read for it.
    const terms = readRows([
      ["Fälligkeit", 40, 500],
      ["sofort", 100, 500],
      ["Lieferdatum 01.10.2018", 40, 514],
    ]);
    expect(value(terms, "due_date")).to.equal(undefined);
  });
});

describe("text reader: a column of totals, a row per VAT rate", () => {
  const header: Row[] = [
    ["Warenwert", 40, 500],
    ["Nettobetrag", 200, 500],
    ["MwSt-Betrag", 300, 500],
    ["MwSt-%", 400, 500],
    ["Endbetrag", 480, 500],
  ];
  const row = (y: number, cells: [string, string, string, string, string]): Row[] =>
    cells.map((text, index) => [text, [40, 200, 300, 400, 480][index] as number, y]);

  it("takes the row that is the sum of the rows above it: the totals, not the first rate's", () => {
    const read = readRows([
      ["Rechnung Nr. R-1", 40, 100],
      ...header,
      ...row(514, ["326,50", "321,40", "61,07", "19,0", "382,47"]),
      ...row(528, ["130,70", "127,59", "8,93", "7,0", "136,52"]),
      ...row(542, ["457,20", "448,99", "70,00", "EUR", "518,99"]),
    ]);
    expect(valuesOf(read, { total_without_tax: "", total_tax: "", total_due: "" })).to.deep.equal({
      total_without_tax: "448.99",
      total_tax: "70.00",
      total_due: "518.99",
    });
    expect(read.fields.total_due?.evidence).to.include({ place: "below" });
  });

  it("gives a total under its header at low confidence where several rows stand and none is their sum", () => {
    const read = readRows([
      ["Rechnung Nr. R-1", 40, 100],
      ...header,
      ...row(514, ["326,50", "321,40", "61,07", "19,0", "382,47"]),
      ...row(528, ["130,70", "127,59", "8,93", "7,0", "136,52"]),
    ]);
    expect(read.fields.total_due?.confidence ?? 0).to.be.at.most(50);
    // One row: its value is the total.
    const single = readRows([["Rechnung Nr. R-1", 40, 100], ...header, ...row(514, ["326,50", "321,40", "61,07", "19,0", "382,47"])]);
    expect(value(single, "total_due")).to.equal("382.47");
    expect(single.fields.total_due?.confidence ?? 0).to.be.above(50);
  });
});

describe("text reader: a line-item table whose header is printed over several lines", () => {
  /** "Positions- / betrag / … / ohne / USt." over and under the line that names the other columns. */
  const header: Row[] = [
    ["Art-Nr-Kunde", 70, 100],
    ["Positions-", 500, 100],
    ["Art-Nr-Lief.", 70, 110],
    ["betrag", 515, 110],
    ["Pos", 40, 120],
    ["Beschreibung", 130, 120],
    ["Nettopreis", 290, 120],
    ["Menge", 390, 120],
    ["USt.", 460, 120],
    ["Art-Nr", 70, 130],
    ["ohne", 520, 130],
    ["(Art)", 70, 140],
    ["USt.", 520, 140],
  ];
  /** A row and its own lines below it: article number, GTIN, gross price, packing, properties. */
  const item = (position: number, y: number, name: string, amount: string): Row[] => [
    [String(position), 45, y],
    [name, 130, y],
    ["0,0520", 310, y],
    [position === 2 ? "10000 KWH" : "5 Stk", 390, y],
    ["19 %", 460, y],
    [amount, 515, y],
    [`ZS99${position}`, 70, y + 10],
    ["4123456000014", 70, y + 20],
    ["(GTIN)", 70, y + 30],
    ["Bruttopreis : 1,0000", 130, y + 40],
    ["* Anzahl Packstücke: 4 Karton", 130, y + 58],
    ["Weitere Eigenschaften:", 130, y + 76],
    ["Verpackungsart: = BO", 130, y + 94],
  ];

  it("joins each column's header words top to bottom and reads rows separated by their own lines", () => {
    const read = readRows([
      ["Rechnung Nr. R-1", 40, 60],
      ...header,
      ...item(1, 160, "Zitronensäure 100ml", "100,00"),
      ...item(2, 280, "Gelierzucker Extra 250g", "72,50"),
      ...item(3, 400, "Bierbrau Pils 20/0500", "180,00"),
    ]);
    expect(read.lineItems?.rows.map((row) => [row.activity, row.quantity, row.unit_price, row.vat_rate])).to.deep.equal([
      ["Zitronensäure 100ml", "5", "0.052", "19"],
      ["Gelierzucker Extra 250g", "10000", "0.052", "19"],
      ["Bierbrau Pils 20/0500", "5", "0.052", "19"],
    ]);
  });

  it("takes no footer line for a row after a row's own lines: a late row must fill the columns the first one filled", () => {
    const read = readRows([
      ["Rechnung Nr. R-1", 40, 60],
      ...header,
      ...item(1, 160, "Zitronensäure 100ml", "100,00"),
      // Seven lines later a footer with an amount in the amount column and text in the description's.
      ["Skonto bei Zahlung bis 14.08.", 130, 290],
      ["2,00", 515, 290],
    ]);
    expect(read.lineItems?.rows.map((row) => row.activity)).to.deep.equal(["Zitronensäure 100ml"]);
  });
});

describe("text reader: a date that could be read either way", () => {
  it("gives a date with day and month both ≤ 12, and nothing on the page to tell their order, a confidence of at most 50", () => {
    const page = (date: string) =>
      readRows([
        ["Invoice number", 70, 100],
        ["INV-77", 200, 100],
        ["Invoice date", 70, 118],
        [date, 200, 118],
      ]);
    const ambiguous = page("03/04/2024");
    expect(value(ambiguous, "issue_date")).to.equal("2024-04-03");
    expect(ambiguous.fields.issue_date?.confidence).to.be.at.most(50);
    const plain = page("13/04/2024");
    expect(value(plain, "issue_date")).to.equal("2024-04-13");
    expect(plain.fields.issue_date?.confidence).to.be.above(50);
  });

  it("reads such a date day first, and is sure of it, on a page in a language that writes the day first", () => {
    const dutch = readRows([
      ["Factuurnummer:", 70, 100],
      ["2026-0042", 200, 100],
      ["Factuurdatum:", 70, 118],
      ["03-02-2026", 200, 118],
    ]);
    expect(value(dutch, "issue_date")).to.equal("2026-02-03");
    expect(dutch.fields.issue_date?.confidence).to.be.above(50);
    // An English invoice of a French supplier prints "TVA" too: its date stays a guess.
    const english = readRows([
      ["Invoice number", 70, 100],
      ["INV-77", 200, 100],
      ["Invoice Date", 70, 118],
      ["11/03/2017", 200, 118],
      ["TVA : FR11999999998", 70, 136],
    ]);
    expect(english.fields.issue_date?.confidence).to.be.at.most(50);
  });
});

describe("text reader: OCR's words", () => {
  /** A TSV row of tesseract's: level, page, block, paragraph, line, word, left, top, width, height, confidence, text. */
  const row = (level: number, line: number, word: number, left: number, top: number, width: number, height: number, text = "") =>
    [level, 1, 1, 1, line, word, left, top, width, height, level === 5 ? 95 : -1, text].join("\t");

  it("puts each word on its tesseract line (its top and height) and joins a phrase's words with wide ink gaps, spaced", () => {
    // "MUSTERLIEFERANT GMBH": capitals only, 13 px of ink on a line 17 px high, 15 px between the words' ink.
    const tsv = [
      "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext",
      row(4, 1, 0, 134, 858, 400, 17),
      row(5, 1, 1, 134, 860, 197, 13, "MUSTERLIEFERANT"),
      row(5, 1, 2, 346, 860, 51, 13, "GMBH"),
      row(5, 1, 3, 900, 858, 40, 17, "Seite"),
      row(4, 2, 0, 134, 884, 300, 17),
      row(5, 2, 1, 134, 884, 120, 17, "Handelsrechnung"),
      row(5, 2, 2, 262, 889, 30, 12, "vom"),
    ].join("\n");
    const words = wordsOfTsv(tsv, 1);
    expect(words.map((word) => [word.text, word.y, word.height])).to.deep.equal([
      ["MUSTERLIEFERANT", 858, 17],
      ["GMBH", 858, 17],
      ["Seite", 858, 17],
      ["Handelsrechnung", 884, 17],
      ["vom", 884, 17],
    ]);
    const lines = linesOf(words);
    expect(lines.map((line) => line.segments.map((segment) => segment.text))).to.deep.equal([
      ["MUSTERLIEFERANT GMBH", "Seite"],
      ["Handelsrechnung vom"],
    ]);
  });

  it("reads 'Nr.' apart from its label, the date after the number in the next segments, and '19 $' as no dollar", () => {
    const result = readRows(
      [
        ["Handelsrechnung", 70, 100],
        ["Nr. 471102", 290, 100],
        ["vom", 390, 100],
        ["05.03.2018", 440, 100],
        ["Zitronensäure 19 $ 100,00", 70, 300],
        ["Gesamtbetrag EUR", 70, 400],
        ["119,00", 300, 400],
      ],
      "builtin:ocr",
    );
    expect(value(result, "invoice_id")).to.equal("471102");
    expect(value(result, "issue_date")).to.equal("2018-03-05");
    expect(value(result, "currency")).to.equal("EUR");
  });
});

describe("text reader: the kind of document", () => {
  it("reads a credit note's title (de, en, cs, fr) as document_type credit_note; an invoice's, or an ambiguous 'Gutschrift', as nothing", async () => {
    for (const title of ["Rechnungskorrektur Nr. RK-2026-7", "Credit note CN-7", "Dobropis c. 2026-7", "Avoir n° AV-7"]) {
      const bytes = await placedPdf([
        [title, 40, 40, 16],
        ["Datum: 05.03.2026", 40, 80],
        ["Gesamtbetrag: 119,00 EUR", 330, 300],
      ]);
      const result = await extractInvoice({ bytes });
      expect(value(result, "document_type"), title).to.equal("credit_note");
    }
    const invoice = await extractInvoice({ bytes: await placedPdf(layoutOf("fr").placed) });
    expect(value(invoice, "document_type")).to.equal(undefined);
    // A German "Gutschrift" is a self-billed invoice as often as a credit note: no kind rather than a wrong one.
    const selfBilled = await placedPdf([["Gutschrift (Selbst ausgestellte Rechnung) Nr. 47110818", 40, 40, 12]]);
    expect(value(await extractInvoice({ bytes: selfBilled }), "document_type")).to.equal(undefined);
  });
});
