import { expect } from "chai";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { extractInvoice } from "../src/engine/engine.js";

/**
 * A German invoice whose 60-row table runs over two pages: the header repeated on page 2, the first page closing with
 * its carried-over sum ("Übertrag") and a page footer, the total on page 2.
 */
async function twoPageInvoice(printedTotal: string): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const header = (page: ReturnType<typeof pdf.addPage>, y: number) => {
    for (const [text, x] of [
      ["Beschreibung", 50],
      ["Menge", 300],
      ["Einzelpreis", 360],
      ["MwSt", 440],
      ["Gesamt", 500],
    ] as const)
      page.drawText(text, { x, y, size: 9, font });
  };
  const row = (page: ReturnType<typeof pdf.addPage>, y: number, index: number) => {
    for (const [text, x] of [
      [`Artikel ${index}`, 50],
      ["1", 300],
      ["10,00", 360],
      ["19 %", 440],
      ["11,90", 500],
    ] as const)
      page.drawText(text, { x, y, size: 9, font });
  };
  const first = pdf.addPage([595, 842]);
  first.drawText("Muster Handel GmbH", { x: 50, y: 800, size: 10, font });
  first.drawText("Rechnung Nr. R-2026-60", { x: 50, y: 770, size: 10, font });
  first.drawText("Rechnungsdatum: 02.11.2026", { x: 50, y: 755, size: 10, font });
  header(first, 720);
  for (let index = 1; index <= 35; index += 1) row(first, 720 - index * 16, index);
  first.drawText("Übertrag".replace("Ü", "U").replace("bertrag", "ebertrag"), { x: 50, y: 120, size: 9, font });
  first.drawText("416,50", { x: 500, y: 120, size: 9, font });
  first.drawText("Seite 1 von 2", { x: 270, y: 60, size: 8, font });
  const second = pdf.addPage([595, 842]);
  header(second, 780);
  for (let index = 36; index <= 60; index += 1) row(second, 780 - (index - 35) * 16, index);
  second.drawText("Gesamtbetrag", { x: 360, y: 330, size: 10, font });
  second.drawText(`${printedTotal} EUR`, { x: 490, y: 330, size: 10, font });
  second.drawText("Seite 2 von 2", { x: 270, y: 60, size: 8, font });
  return pdf.save();
}

describe("extraction engine: a table over two pages (issue 36, item 8)", function () {
  this.timeout(30_000);

  it("reads all 60 rows, not the carried-over sum nor the repeated header, and the total agrees with them", async () => {
    const result = await extractInvoice({ bytes: await twoPageInvoice("714,00") });
    const rows = result.lineItems?.rows ?? [];
    expect(rows).to.have.length(60);
    expect(rows[0]).to.deep.include({ activity: "Artikel 1", total_incl_tax: "11.90" });
    expect(rows[59]).to.deep.include({ activity: "Artikel 60", total_incl_tax: "11.90" });
    expect(rows.some((row) => /uebertrag|beschreibung/i.test(row.activity ?? ""))).to.equal(false);
    expect(result.fields.total_due?.value).to.equal("714.00");
    expect(result.messages.filter((message) => message.key === "line_items")).to.deep.equal([]);
  });

  it("warns when the rows add up to another amount than the total, and trusts the table less", async () => {
    const agreeing = await extractInvoice({ bytes: await twoPageInvoice("714,00") });
    const result = await extractInvoice({ bytes: await twoPageInvoice("800,00") });
    expect(result.fields.total_due?.value).to.equal("800.00");
    const warning = result.messages.find((message) => message.key === "line_items");
    expect(warning?.severity).to.equal("warning");
    expect(warning?.message).to.contain("714.00").and.contain("800.00");
    expect(result.lineItems?.confidence).to.be.below(agreeing.lineItems?.confidence ?? 0);
  });
});
