import { DEFAULT_ANNOTATION_SCHEMA, type SchemaField } from "@docex/annotations";
import { createLogger } from "@docex/kit/logger";
import { expect } from "chai";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { LayoutLearning } from "../src/domain/layout-learning.js";
import { type LayoutPlace, placeConfidence, placesOf, readAs, readPlaces } from "../src/domain/layout-memory.js";
import { extractInvoice } from "../src/engine/engine.js";
import type { PageWord } from "../src/engine/types.js";

const SCHEMA: SchemaField[] = [...DEFAULT_ANNOTATION_SCHEMA];

interface Values {
  number: string;
  issued: string;
  due: string;
  total: string;
}

/** A layout the engine has no labels for: Hungarian, values in a column far right of their labels, the total's label above it. */
async function hungarian(values: Values, shift = 0): Promise<Map<number, PageWord[]>> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([595, 842]);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const line = (text: string, x: number, y: number) => page.drawText(text, { x, y: y - shift, size: 10, font });
  line("Lendulet Szolgaltato Kft.", 50, 790);
  line("Szamla sorszama", 50, 700);
  line(values.number, 330, 700);
  line("Kelt", 50, 684);
  line(values.issued, 330, 684);
  line("Fizetesi hatarido", 50, 668);
  line(values.due, 330, 668);
  line("Fizetendo osszeg", 330, 580);
  line(`${values.total} EUR`, 330, 566);
  const read = await extractInvoice({ bytes: await pdf.save() });
  return new Map((read.pages ?? []).map((entry) => [entry.page, entry.words ?? []]));
}

const typed = (values: Record<string, string>) => Object.entries(values).map(([key, value]) => ({ key, value }));
const learned = (places: Omit<LayoutPlace, "confirmed" | "missed">[]): LayoutPlace[] =>
  places.map((place) => ({ ...place, confirmed: 1, missed: 0 }));
const valuesOf = (annotations: { key: string; value: string }[]) =>
  Object.fromEntries(annotations.map((annotation) => [annotation.key, annotation.value]));

describe("supplier layouts learned from validation (issue 36, item 7)", function () {
  this.timeout(30_000);
  const first = { number: "HU-2026-0042", issued: "03.11.2026", due: "17.11.2026", total: "12 345,60" };
  const second = { number: "HU-2026-0107", issued: "24.11.2026", due: "08.12.2026", total: "980,00" };
  const confirmed = typed({ invoice_id: "HU-2026-0042", issue_date: "2026-11-03", due_date: "2026-11-17", total_due: "12345.60" });

  it("finds where typed values are printed, with the label before or above each as its anchor", async () => {
    const places = placesOf(SCHEMA, confirmed, await hungarian(first));
    expect(Object.fromEntries(places.map((place) => [place.fieldKey, place.anchor]))).to.deep.equal({
      invoice_id: "szamla sorszama",
      issue_date: "kelt",
      due_date: "fizetesi hatarido",
      total_due: "fizetendo osszeg",
    });
  });

  it("reads the next invoice of the layout from there, also when the layout moved down the page", async () => {
    const places = learned(placesOf(SCHEMA, confirmed, await hungarian(first)));
    const expected = { invoice_id: "HU-2026-0107", issue_date: "2026-11-24", due_date: "2026-12-08", total_due: "980.00" };
    expect(valuesOf(readPlaces(SCHEMA, places, await hungarian(second)))).to.deep.equal(expected);
    expect(valuesOf(readPlaces(SCHEMA, places, await hungarian(second, 40)))).to.deep.equal(expected);
    const [read] = readPlaces(SCHEMA, places, await hungarian(second));
    expect(read).to.deep.include({ source: "builtin:layout", confidence: 67 });
    expect(read?.position?.page).to.equal(1);
  });

  it("reads nothing where the anchor is not printed, and nothing the field's type cannot read", async () => {
    const places = learned(placesOf(SCHEMA, confirmed, await hungarian(first)));
    const words = await hungarian(second);
    const withoutLabels = new Map([...words].map(([page, list]) => [page, list.filter((word) => !/^(kelt|szamla)$/i.test(word.text))]));
    expect(Object.keys(valuesOf(readPlaces(SCHEMA, places, withoutLabels)))).to.not.include.members(["issue_date", "invoice_id"]);
    expect(readAs({ key: "total_due", type: "number" }, "Fizetendo 12")).to.equal(undefined);
    expect(readAs({ key: "total_due", type: "number" }, "12 345,60 EUR")).to.equal("12345.60");
    expect(readAs({ key: "due_date", type: "date" }, "soon")).to.equal(undefined);
  });

  it("gives a place's value the rule of succession over its validations as confidence", () => {
    expect(placeConfidence({ confirmed: 1, missed: 0 })).to.equal(67);
    expect(placeConfidence({ confirmed: 9, missed: 0 })).to.equal(91);
    expect(placeConfidence({ confirmed: 1, missed: 3 })).to.equal(33);
  });
});

describe("applying a supplier's layout to a new reading", () => {
  it("replaces what the engine read from the page, never a value read exactly (an e-invoice's XML, a payment code)", async () => {
    const first = { number: "HU-2026-0042", issued: "03.11.2026", due: "17.11.2026", total: "12 345,60" };
    const confirmed = typed({ invoice_id: "HU-2026-0042", issue_date: "2026-11-03", due_date: "2026-11-17", total_due: "12345.60" });
    const places = learned(placesOf(SCHEMA, confirmed, await hungarian(first)));
    const layouts = new LayoutLearning({
      documents: { findDocument: async () => undefined, findQueue: async () => undefined },
      pages: { list: async () => undefined, words: async () => undefined },
      layouts: { places: async () => places, learn: async () => true },
      logger: createLogger("layout-test", "silent"),
    });
    const second = await hungarian({ number: "HU-2026-0107", issued: "24.11.2026", due: "08.12.2026", total: "980,00" });
    const engine = [
      { key: "supplier_tax_id", value: "CZ64610080", source: "builtin:pdf_text" },
      { key: "invoice_id", value: "HU-2026-0107-XML", source: "builtin:einvoice" },
      { key: "total_due", value: "980.00", source: "builtin:qr" },
      { key: "due_date", value: "2026-01-01", source: "builtin:pdf_text" },
    ];
    const applied = valuesOf(await layouts.apply("q-1", SCHEMA, engine, second));
    expect(applied).to.deep.include({
      invoice_id: "HU-2026-0107-XML",
      total_due: "980.00",
      due_date: "2026-12-08",
      issue_date: "2026-11-24",
    });
  });

  it("learns a value apart from a currency or colon printed far from it, and reads its line, not small print beside it", async () => {
    /** Words of a page: [text, x, top] in points, 10 pt high, the way a PDF's text layer gives them. */
    const page = (placed: [string, number, number, number?][]) => {
      const words = placed.map(([text, x, top, size = 10]): PageWord => {
        const width = text.length * size * 0.5;
        return { text, box: [x / 595, top / 842, (x + width) / 595, (top + size) / 842] };
      });
      return new Map([[1, words]]);
    };
    const layout = (tax: string, iban: string, due: string) =>
      page([
        ["Steuerbetrag", 250, 600],
        ["in", 320, 600],
        ["EUR", 400, 600],
        [tax, 480, 600],
        ["IBAN", 60, 650],
        [":", 90, 650],
        [iban, 300, 650],
        ["Date", 40, 400],
        ["d'échéance", 70, 400],
        [due, 160, 400],
        // Small print on the right whose line overlaps the date's (a contact's phone numbers).
        ["+33", 330, 394, 9],
        ["4", 352, 394, 9],
        ["+33", 330, 405, 9],
        ["6", 352, 405, 9],
      ]);
    const first = typed({ total_tax: "37.62", iban: "DE02120300000000202051", due_date: "2017-12-13" });
    const places = learned(placesOf(SCHEMA, first, layout("37,62", "DE02 1203 0000 0000 2020 51".replace(/ /g, ""), "13/12/2017")));
    expect(Object.fromEntries(places.map((place) => [place.fieldKey, place.anchor]))).to.deep.equal({
      total_tax: "steuerbetrag in",
      iban: "iban",
      due_date: "date d'echeance",
    });
    expect(valuesOf(readPlaces(SCHEMA, places, layout("70,00", "DE89370400440532013000", "05/01/2018")))).to.deep.equal({
      total_tax: "70.00",
      iban: "DE89370400440532013000",
      due_date: "2018-01-05",
    });
  });
});
