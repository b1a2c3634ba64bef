import { expect } from "chai";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { type Evidence, featuresOf, probabilityOf } from "../src/engine/confidence.js";
import { CONFIDENCE_MODEL } from "../src/engine/confidence-model.js";
import { extractInvoice } from "../src/engine/engine.js";
import { linesOf, type TextItem } from "../src/engine/page-text.js";
import { openPdf } from "../src/engine/pdf.js";
import { fieldsFromLines } from "../src/engine/text-fields.js";
import type { ExtractionResult, FieldPosition } from "../src/engine/types.js";
import { normalizeDate, normalizeVatId, parseAmount, vatChecksumHolds } from "../src/engine/validators.js";

/** One piece of text at (x, top) in points from the page's top-left corner, size 10 unless given. */
type Placed = [text: string, x: number, top: number, size?: number];

/** A one-page A4 PDF with these texts in Helvetica (WinAnsi: letters beyond it are printed without accents). */
async function pdfOf(placed: Placed[]): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const page = document.addPage([595, 842]);
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (const [text, x, top, size = 10] of placed) page.drawText(text, { x, y: 842 - top - size, size, font });
  return document.save();
}

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
    const bytes = await pdfOf([
      ["Atelier Lumiere SARL", 40, 40, 14],
      ["Facture n° F-2026-114 du 14/03/2026", 330, 40, 12],
      ["Fournisseur", 40, 90],
      ["Atelier Lumiere SARL", 40, 104],
      ["12 rue des Lilas, 69003 Lyon", 40, 118],
      ["TVA : FR40303265045", 40, 132],
      ["Client", 330, 90],
      ["Boulangerie Martin", 330, 104],
      ["8 place du Marche, 13001 Marseille", 330, 118],
      ["TVA : FR44732829320", 330, 132],
      ["Date d'échéance : 13/04/2026", 40, 170],
      ["Désignation", 40, 210],
      ["Qté", 300, 210],
      ["Prix unitaire", 360, 210],
      ["Montant HT", 480, 210],
      ["Éclairage atelier", 40, 228],
      ["1", 300, 228],
      ["1 250,00", 360, 228],
      ["1 250,00", 480, 228],
      ["Total HT", 360, 270],
      ["1 250,00 €", 480, 270],
      ["TVA 20 %", 360, 286],
      ["250,00 €", 480, 286],
      ["Total TTC", 360, 302],
      ["1 500,00 €", 480, 302],
      ["Acompte versé", 360, 318],
      ["500,00 €", 480, 318],
      ["Net à payer", 360, 334],
      ["1 000,00 €", 480, 334],
      ["IBAN : FR14 2004 1010 0505 0001 3M02 606", 40, 380],
    ]);
    const result = await extractInvoice({ bytes });
    expect(value(result, "invoice_id")).to.equal("F-2026-114");
    expect(value(result, "issue_date")).to.equal("2026-03-14");
    expect(value(result, "due_date")).to.equal("2026-04-13");
    expect(value(result, "supplier_name")).to.equal("Atelier Lumiere SARL");
    expect(value(result, "buyer_name")).to.equal("Boulangerie Martin");
    expect(value(result, "supplier_tax_id")).to.equal("FR40303265045");
    expect(value(result, "buyer_tax_id")).to.equal("FR44732829320");
    expect(value(result, "total_without_tax")).to.equal("1250.00");
    expect(value(result, "total_tax")).to.equal("250.00");
    expect(value(result, "total_due")).to.equal("1000.00");
    expect(value(result, "currency")).to.equal("EUR");
    expect(value(result, "iban")).to.equal("FR1420041010050500013M02606");
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
    const bytes = await pdfOf([
      ["FACTUUR", 40, 40, 18],
      ["Leverancier", 40, 90],
      ["Klant", 330, 90],
      ["Groenhuis B.V.", 40, 104],
      ["De Vries Bouw B.V.", 330, 104],
      ["Kanaalweg 4, 3526 KL Utrecht", 40, 118],
      ["Dorpsstraat 10, 1234 AB Ede", 330, 118],
      ["BTW-nummer: NL004495445B01", 40, 132],
      ["BTW-nummer: NL123456789B01", 330, 132],
      ["IBAN: DE89 3704 0044 0532 0130 00", 330, 146],
      ["Factuurnummer:", 40, 190],
      ["2026-0042", 160, 190],
      ["Factuurdatum:", 40, 204],
      ["03-02-2026", 160, 204],
      ["Vervaldatum:", 40, 218],
      ["05-03-2026", 160, 218],
      ["Subtotaal", 360, 300],
      ["€ 800,00", 480, 300],
      ["BTW 21%", 360, 314],
      ["€ 168,00", 480, 314],
      ["Totaal te betalen", 360, 328],
      ["€ 968,00", 480, 328],
      ["Gelieve te betalen op IBAN NL91 ABNA 0417 1643 00", 40, 380],
    ]);
    const result = await extractInvoice({ bytes });
    expect(value(result, "invoice_id")).to.equal("2026-0042");
    expect(value(result, "issue_date")).to.equal("2026-02-03");
    expect(value(result, "due_date")).to.equal("2026-03-05");
    expect(value(result, "supplier_name")).to.equal("Groenhuis B.V.");
    expect(value(result, "buyer_name")).to.equal("De Vries Bouw B.V.");
    expect(value(result, "supplier_tax_id")).to.equal("NL004495445B01");
    expect(value(result, "buyer_tax_id")).to.equal("NL123456789B01");
    expect(value(result, "iban")).to.equal("NL91ABNA0417164300");
    expect(value(result, "total_without_tax")).to.equal("800.00");
    expect(value(result, "total_tax")).to.equal("168.00");
    expect(value(result, "total_due")).to.equal("968.00");
    expect(await wordsUnder(bytes, result.fields.iban?.position)).to.contain("NL91 ABNA 0417 1643 00");
  });

  it("pl: Sprzedawca / Nabywca stacked, values below their labels, PLN from the totals", async () => {
    const bytes = await pdfOf([
      ["Faktura VAT nr FV/12/2026", 40, 40, 16],
      ["Data wystawienia", 330, 40],
      ["Termin platnosci", 450, 40],
      ["2026-03-05", 330, 54],
      ["19.03.2026", 450, 54],
      ["Sprzedawca:", 40, 100],
      ["Drukarnia Wisla sp. z o.o.", 40, 114],
      ["ul. Dluga 5, 00-950 Warszawa", 40, 128],
      ["NIP: PL5260250274", 40, 142],
      ["Nabywca:", 40, 190],
      ["Kwiaciarnia Roza", 40, 204],
      ["ul. Krotka 1, 30-001 Krakow", 40, 218],
      ["NIP: PL7740001454", 40, 232],
      ["Razem netto", 330, 300],
      ["1 000,00 zl", 480, 300],
      ["Kwota VAT", 330, 314],
      ["230,00 zl", 480, 314],
      ["Razem brutto", 330, 328],
      ["1 230,00 zl", 480, 328],
      ["Do zaplaty: 1 230,00 PLN", 330, 350],
      ["Konto: PL61 1090 1014 0000 0712 1981 2874", 40, 400],
    ]);
    const result = await extractInvoice({ bytes });
    expect(value(result, "invoice_id")).to.equal("FV/12/2026");
    expect(value(result, "issue_date")).to.equal("2026-03-05");
    expect(value(result, "due_date")).to.equal("2026-03-19");
    expect(value(result, "supplier_name")).to.equal("Drukarnia Wisla sp. z o.o.");
    expect(value(result, "buyer_name")).to.equal("Kwiaciarnia Roza");
    expect(value(result, "supplier_tax_id")).to.equal("PL5260250274");
    expect(value(result, "buyer_tax_id")).to.equal("PL7740001454");
    expect(value(result, "total_due")).to.equal("1230.00");
    expect(value(result, "total_without_tax")).to.equal("1000.00");
    expect(value(result, "currency")).to.equal("PLN");
    expect(value(result, "iban")).to.equal("PL61109010140000071219812874");
    expect(await wordsUnder(bytes, result.fields.due_date?.position)).to.equal("19.03.2026");
  });

  it("sk: Dodávateľ / Odberateľ, IČO, IČ DPH, variabilný symbol, Czech-style dates with spaces", async () => {
    const bytes = await pdfOf([
      ["Faktura c. 2026/0815", 40, 40, 16],
      ["Dodavatel:", 40, 90],
      ["Odberatel:", 330, 90],
      ["Tatra Soft s.r.o.", 40, 104],
      ["Horal a.s.", 330, 104],
      ["ICO: 35757442", 40, 118],
      ["ICO: 31333532", 330, 118],
      ["IC DPH: SK2020317068", 40, 132],
      ["IC DPH: SK2020261353", 330, 132],
      ["Datum vyhotovenia: 5. 3. 2026", 40, 180],
      ["Datum splatnosti: 19. 3. 2026", 40, 194],
      ["Variabilny symbol: 20260815", 40, 208],
      ["IBAN: SK31 1200 0000 1987 4263 7541", 40, 222],
      ["Zaklad dane", 330, 280],
      ["1 000,00 EUR", 480, 280],
      ["DPH 23 %", 330, 294],
      ["230,00 EUR", 480, 294],
      ["Suma na uhradu", 330, 308],
      ["1 230,00 EUR", 480, 308],
    ]);
    const result = await extractInvoice({ bytes });
    expect(value(result, "invoice_id")).to.equal("2026/0815");
    expect(value(result, "issue_date")).to.equal("2026-03-05");
    expect(value(result, "due_date")).to.equal("2026-03-19");
    expect(value(result, "variable_symbol")).to.equal("20260815");
    expect(value(result, "supplier_name")).to.equal("Tatra Soft s.r.o.");
    expect(value(result, "buyer_name")).to.equal("Horal a.s.");
    expect(value(result, "supplier_tax_id")).to.equal("SK2020317068");
    expect(value(result, "buyer_tax_id")).to.equal("SK2020261353");
    expect(value(result, "iban")).to.equal("SK3112000000198742637541");
    expect(value(result, "total_due")).to.equal("1230.00");
    expect(value(result, "total_tax")).to.equal("230.00");
    expect(value(result, "currency")).to.equal("EUR");
  });

  it("en (US): month-first dates when another date says so, Bill to, the balance due rather than a subtotal", async () => {
    const bytes = await pdfOf([
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
    const items: TextItem[] = [
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
    ].map(([text, x, y]) => ({
      text: text as string,
      x: x as number,
      y: y as number,
      width: (text as string).length * 5,
      height: 10,
      page: 1,
    }));
    const result = fieldsFromLines(linesOf(items), "builtin:pdf_text");
    expect(value(result, "supplier_name")).to.equal("Nordlicht Werkzeuge GmbH");
    expect(value(result, "buyer_name")).to.equal("Hafen Logistik AG");
  });
});
