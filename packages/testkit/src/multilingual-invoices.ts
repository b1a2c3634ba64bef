import { PDFDocument, StandardFonts } from "pdf-lib";

/**
 * Invoices in layouts and languages the engine's own generator never uses (fr, nl, pl, sk), each with the values a
 * reader must give: the engine's tests read them in-process, the stack's through the gateway.
 */

/** One piece of text at (x, top) in points from the page's top-left corner, size 10 unless given. */
export type Placed = [text: string, x: number, top: number, size?: number];

/** A one-page A4 PDF with these texts in Helvetica (WinAnsi: letters beyond it are printed without accents). */
export async function placedPdf(placed: readonly Placed[]): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const page = document.addPage([595, 842]);
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (const [text, x, top, size = 10] of placed) page.drawText(text, { x, y: 842 - top - size, size, font });
  return document.save();
}

export interface MultilingualInvoice {
  language: "fr" | "nl" | "pl" | "sk";
  placed: Placed[];
  /** The engine's fields and the values (in its normalized forms) a reader must give. */
  expected: Record<string, string>;
}

export const MULTILINGUAL_INVOICES: MultilingualInvoice[] = [
  {
    language: "fr",
    placed: [
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
    ],
    expected: {
      invoice_id: "F-2026-114",
      issue_date: "2026-03-14",
      due_date: "2026-04-13",
      supplier_name: "Atelier Lumiere SARL",
      buyer_name: "Boulangerie Martin",
      supplier_tax_id: "FR40303265045",
      buyer_tax_id: "FR44732829320",
      total_without_tax: "1250.00",
      total_tax: "250.00",
      total_due: "1000.00",
      currency: "EUR",
      iban: "FR1420041010050500013M02606",
    },
  },
  {
    language: "nl",
    placed: [
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
    ],
    expected: {
      invoice_id: "2026-0042",
      issue_date: "2026-02-03",
      due_date: "2026-03-05",
      supplier_name: "Groenhuis B.V.",
      buyer_name: "De Vries Bouw B.V.",
      supplier_tax_id: "NL004495445B01",
      buyer_tax_id: "NL123456789B01",
      iban: "NL91ABNA0417164300",
      total_without_tax: "800.00",
      total_tax: "168.00",
      total_due: "968.00",
    },
  },
  {
    language: "pl",
    placed: [
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
    ],
    expected: {
      invoice_id: "FV/12/2026",
      issue_date: "2026-03-05",
      due_date: "2026-03-19",
      supplier_name: "Drukarnia Wisla sp. z o.o.",
      buyer_name: "Kwiaciarnia Roza",
      supplier_tax_id: "PL5260250274",
      buyer_tax_id: "PL7740001454",
      total_due: "1230.00",
      total_without_tax: "1000.00",
      currency: "PLN",
      iban: "PL61109010140000071219812874",
    },
  },
  {
    language: "sk",
    placed: [
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
    ],
    expected: {
      invoice_id: "2026/0815",
      issue_date: "2026-03-05",
      due_date: "2026-03-19",
      variable_symbol: "20260815",
      supplier_name: "Tatra Soft s.r.o.",
      buyer_name: "Horal a.s.",
      supplier_tax_id: "SK2020317068",
      buyer_tax_id: "SK2020261353",
      iban: "SK3112000000198742637541",
      total_due: "1230.00",
      total_tax: "230.00",
      currency: "EUR",
    },
  },
];
