import { canRasterize, makeInvoice, rasterize } from "@docex/testkit/invoice-corpus";
import { expect } from "chai";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { extractInvoice } from "../src/engine/engine.js";
import { ocrAvailable } from "../src/engine/ocr.js";
import { parsePayBySquare } from "../src/engine/pay-by-square.js";
import { pageToSearchForQr } from "../src/engine/qr.js";
import { parseSpayd } from "../src/engine/spayd.js";
import {
  BASE32HEX,
  base32hex,
  invoiceWithCodes,
  OTHER_IBAN,
  type Payment,
  payBySquare,
  paymentOf,
  spayd,
  withCodes,
} from "./support/payment-codes.js";

describe("payment QR codes (issue 36, item 4)", function () {
  this.timeout(60_000);
  const payment: Payment = {
    iban: "CZ5855000000001265098001",
    amount: "1589.80",
    currency: "CZK",
    variableSymbol: "2025001234",
    dueDate: "2025-03-31",
  };

  describe("SPAYD (QR Platba)", () => {
    it("reads the published sample with its CRC32 (AAD80227), and says unchecksummed when the CRC does not hold", () => {
      expect(parseSpayd("SPD*1.0*ACC:CZ5855000000001265098001*AM:100.00*CC:CZK*CRC32:AAD80227")).to.deep.equal({
        kind: "spayd",
        ibans: ["CZ5855000000001265098001"],
        amount: "100.00",
        currency: "CZK",
        checksummed: true,
      });
      expect(parseSpayd("SPD*1.0*ACC:CZ5855000000001265098001*AM:100.01*CC:CZK*CRC32:AAD80227")?.checksummed).to.equal(false);
    });

    it("reads IBAN (with BIC and alternatives), amount, variable symbol and due date exactly, in any key order and case", () => {
      const read = parseSpayd(
        `spd*1.0*x-vs:0012345*DT:20250331*AM:1589.8*ACC:${payment.iban}+RZBCCZPP*ALT-ACC:${OTHER_IBAN}+GIBACZPX,CZ0000*CC:czk`,
      );
      expect(read).to.deep.include({
        ibans: [payment.iban, OTHER_IBAN],
        amount: "1589.80",
        currency: "CZK",
        variableSymbol: "0012345",
        dueDate: "2025-03-31",
        checksummed: false,
      });
    });

    it("ignores what is not a payment: another text, an account failing mod-97, a broken pair, an oversized text", () => {
      for (const text of [
        "https://example.invalid/pay",
        "SPD*1.0*AM:100.00*CC:CZK",
        "SPD*1.0*ACC:CZ5855000000001265098002*AM:100.00",
        "SPD*1.0*ACC:CZ5855000000001265098001*AM",
        "SPD*1.0*ACC:CZ5855000000001265098001*ACC:CZ5855000000001265098001",
        `SPD*1.0*ACC:CZ5855000000001265098001*MSG:${"A".repeat(5_000)}`,
      ])
        expect(parseSpayd(text), text.slice(0, 40)).to.equal(undefined);
      const odd = parseSpayd("SPD*1.0*ACC:CZ5855000000001265098001*AM:1e9*X-VS:12AB*DT:20251340*CC:KČ");
      expect(odd).to.deep.equal({ kind: "spayd", ibans: ["CZ5855000000001265098001"], checksummed: false });
    });
  });

  describe("PAY by square", () => {
    it("reads a code made by another encoder (the bysquare project's published test string: 100 EUR, VS 123)", () => {
      const published =
        "0804O0002G0L2UES834BQT9SQJQA9M5QGN1AHN4VO0KB6MVM9RPFU06E5LQEOQUN07FTDIF96UAS90AOPDCSE86CMTRAI45IDKRHJ6BUOIG1162LVVVRAKA000";
      expect(parsePayBySquare(published)).to.deep.equal({
        kind: "pay_by_square",
        ibans: ["SK9611000000002918599669"],
        amount: "100.00",
        currency: "EUR",
        variableSymbol: "123",
        checksummed: true,
      });
    });

    it("reads IBAN, amount, variable symbol and due date exactly from a code made here", () => {
      const slovak = { ...payment, iban: "SK9611000000002918599669", currency: "EUR" };
      expect(parsePayBySquare(payBySquare(slovak))).to.deep.equal({
        kind: "pay_by_square",
        ibans: [slovak.iban],
        amount: slovak.amount,
        currency: "EUR",
        variableSymbol: slovak.variableSymbol,
        dueDate: slovak.dueDate,
        checksummed: true,
      });
    });

    it("ignores garbage safely: a wrong CRC, truncated or forged LZMA, a length past the data, other by-square types", () => {
      const good = payBySquare(payment);
      const bytesOf = (text: string) => {
        const bits = [...text].map((character) => BASE32HEX.indexOf(character).toString(2).padStart(5, "0")).join("");
        return Buffer.from(
          Array.from({ length: Math.floor(bits.length / 8) }, (_, index) => Number.parseInt(bits.slice(index * 8, index * 8 + 8), 2)),
        );
      };
      const declaring = (length: number, body: Buffer) =>
        base32hex(Buffer.concat([Buffer.from([0x01, 0x00, length & 0xff, length >> 8]), body]));
      const body = bytesOf(good).subarray(4);
      for (const text of [
        payBySquare(payment, { breakCrc: true }),
        good.slice(0, good.length - 12),
        declaring(65_535, body),
        declaring(65_535, Buffer.alloc(400, 0xff)),
        declaring(5, body),
        `4${good.slice(1)}`,
        "0".repeat(4_000),
        "V".repeat(64),
        good.toLowerCase(),
        `${good}W`,
      ])
        expect(parsePayBySquare(text), text.slice(0, 24)).to.equal(undefined);
    });
  });

  describe("on pages", () => {
    it("reads a QR Platba on a text PDF: printed values it confirms keep their place and gain its confidence", async () => {
      const invoice = makeInvoice(41, "cs");
      const expected = paymentOf(invoice);
      const result = await extractInvoice({ bytes: await invoiceWithCodes(invoice, [spayd(expected)]) });
      expect(result.format).to.equal("pdf_text");
      expect(result.fields.iban).to.include({ value: expected.iban, source: "builtin:pdf_text", confidence: 99 });
      expect(result.fields.total_due).to.include({ value: expected.amount, confidence: 99 });
      expect(result.fields.variable_symbol).to.include({ value: expected.variableSymbol, confidence: 99 });
      expect(result.fields.due_date).to.include({ value: expected.dueDate, confidence: 99 });
      expect(result.messages.filter((message) => message.severity === "warning")).to.deep.equal([]);
    });

    it("fills what the page does not print from the code (source builtin:qr, position on the code)", async () => {
      const document = await PDFDocument.create();
      const page = document.addPage([595, 842]);
      page.drawText("Objednavka 2025-77: zaplatte prosim", {
        x: 50,
        y: 780,
        size: 12,
        font: await document.embedFont(StandardFonts.Helvetica),
      });
      const result = await extractInvoice({ bytes: await withCodes(document, [spayd(payment, { crc: false })]) });
      for (const [key, value] of [
        ["iban", payment.iban],
        ["total_due", payment.amount],
        ["currency", "CZK"],
        ["variable_symbol", payment.variableSymbol],
        ["due_date", payment.dueDate],
        ["bank_account", "1265098001/5500"],
      ] as const)
        expect(result.fields[key], key).to.include({ value, source: "builtin:qr", confidence: 97 });
      const box = result.fields.iban?.position?.box as number[];
      // The code is drawn at x 50–155, y 60–165 points from the bottom of a 595 × 842 page.
      expect(box[0]).to.be.closeTo(50 / 595, 0.02);
      expect(box[2]).to.be.closeTo(155 / 595, 0.02);
      expect(box[1]).to.be.closeTo(1 - 165 / 842, 0.02);
      expect(box[3]).to.be.closeTo(1 - 60 / 842, 0.02);
    });

    it("warns, naming both, where the code's IBAN and amount disagree with the printed ones, and takes the code's", async () => {
      const invoice = makeInvoice(42, "cs");
      const printed = paymentOf(invoice);
      const coded = { ...printed, iban: OTHER_IBAN, amount: (Number(printed.amount) + 100).toFixed(2) };
      const result = await extractInvoice({ bytes: await invoiceWithCodes(invoice, [spayd(coded)]) });
      expect(result.fields.iban).to.include({ value: OTHER_IBAN, source: "builtin:qr", confidence: 50 });
      expect(result.fields.total_due).to.include({ value: coded.amount, source: "builtin:qr", confidence: 50 });
      expect(result.fields.variable_symbol).to.include({ value: printed.variableSymbol, confidence: 99 });
      const warnings = result.messages.filter((message) => message.severity === "warning");
      expect(warnings.map((message) => message.key)).to.deep.equal(["iban", "total_due"]);
      expect(warnings[0]?.message).to.contain(`The payment QR code says IBAN ${OTHER_IBAN} but the invoice prints ${printed.iban}`);
      expect(warnings[1]?.message).to.contain(`says amount ${coded.amount} but the invoice prints ${printed.amount}`);
    });

    it("passes over codes that are not payments (a link, a forged PAY by square, a bad account) and reads the page", async () => {
      const invoice = makeInvoice(43, "cs");
      const forged = base32hex(Buffer.concat([Buffer.from([0x01, 0x00, 0xff, 0xff]), Buffer.alloc(300, 0x5a)]));
      const result = await extractInvoice({
        bytes: await invoiceWithCodes(invoice, [
          "https://example.invalid/invoice/43",
          forged,
          "SPD*1.0*ACC:CZ5855000000001265098002*AM:1.00",
        ]),
      });
      expect(result.fields.iban).to.include({ value: invoice.supplier.iban, source: "builtin:pdf_text" });
      expect(Object.values(result.fields).filter((field) => field.source === "builtin:qr")).to.deep.equal([]);
      expect(result.messages.filter((message) => message.severity === "warning")).to.deep.equal([]);
    });

    it("reads a PAY by square code on a scan (PNG) next to what OCR reads", async function () {
      if (!(await canRasterize()) || !(await ocrAvailable())) this.skip();
      const invoice = makeInvoice(44, "cs");
      const expected = { ...paymentOf(invoice), iban: "SK9611000000002918599669", currency: "EUR" };
      const { png } = await rasterize(await invoiceWithCodes(invoice, [payBySquare(expected)]), 200);
      const result = await extractInvoice({ bytes: png });
      expect(result.format).to.equal("ocr");
      expect(result.fields.iban?.value).to.equal(expected.iban);
      expect(result.fields.total_due?.value).to.equal(expected.amount);
      expect(result.fields.variable_symbol?.value).to.equal(expected.variableSymbol);
      expect(result.fields.due_date?.value).to.equal(expected.dueDate);
      // The scan prints the Czech supplier's IBAN: the code's Slovak one contradicts it, and says so.
      expect(result.messages.find((message) => message.key === "iban")?.message).to.contain(
        `says IBAN ${expected.iban} but the invoice prints ${invoice.supplier.iban}`,
      );
    });

    it("renders a text PDF's page only where its text suggests a Czech or Slovak payment code", () => {
      const item = (text: string, page = 1) => ({ text, x: 0, y: 0, width: 10, height: 10, page });
      expect(pageToSearchForQr([item("Rechnung Nr. 1"), item("IBAN DE89 3704 0044 0532 0130 00"), item("Summe 10,00 €")])).to.equal(
        undefined,
      );
      expect(pageToSearchForQr([item("Faktura"), item("Číslo účtu: 1265098001/5500")])).to.equal(1);
      expect(pageToSearchForQr([item("Faktúra"), item("IBAN SK96 1100 0000 0029 1859 9669")])).to.equal(1);
      expect(pageToSearchForQr([item("Faktura CZK"), item("Zaplaťte QR kódem", 2)])).to.equal(2);
      expect(pageToSearchForQr([item("Invoice"), item("PAY by square", 3)])).to.equal(3);
    });
  });
});
