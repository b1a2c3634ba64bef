import { expect } from "chai";
import { parseDate, parseNumber, typeProblem } from "../src/field-values.js";

describe("reading numbers and dates out of annotation text", () => {
  it("reads numbers in the usual invoice notations and refuses the rest", () => {
    const cases: Array<[string, number | undefined]> = [
      ["1234", 1234],
      ["-12.5", -12.5],
      ["+7", 7],
      ["12,50", 12.5],
      ["1 234,56", 1234.56],
      ["1\u00a0234,56", 1234.56],
      ["1,234.56", 1234.56],
      ["1.234.567,8", 1234567.8],
      ["1.234.567", 1234567],
      ["1'000", 1000],
      ["twelve", undefined],
      ["12 €", undefined],
      ["1.2.3", undefined],
      ["1,2,3", undefined],
      ["1.234,5,6", undefined],
      [",", undefined],
      ["--1", undefined],
      ["", undefined],
    ];
    for (const [text, expected] of cases) expect(parseNumber(text), JSON.stringify(text)).to.equal(expected);
  });

  it("reads ISO and day-first dates, refusing days that do not exist", () => {
    const cases: Array<[string, string | undefined]> = [
      ["2025-03-31", "2025-03-31"],
      ["31.3.2025", "2025-03-31"],
      ["31. 3. 2025", "2025-03-31"],
      ["01/02/2024", "2024-02-01"],
      ["29.2.2024", "2024-02-29"],
      ["29.2.2023", undefined],
      ["2025-02-30", undefined],
      ["2025-13-01", undefined],
      ["31/04/2025", undefined],
      ["03/31/2025", undefined],
      ["yesterday", undefined],
      ["2025-3-1", undefined],
    ];
    for (const [text, expected] of cases) expect(parseDate(text), text).to.equal(expected);
  });
});

describe("typeProblem", () => {
  it("names a value that does not fit its field type, and lets empty text and plain strings pass", () => {
    expect(typeProblem("number", "a lot")).to.equal('"a lot" is not a number');
    expect(typeProblem("date", "32.13.2024")).to.match(/is not a date/);
    expect(typeProblem("number", "1 234,50")).to.equal(undefined);
    expect(typeProblem("date", "")).to.equal(undefined);
    expect(typeProblem("string", "anything")).to.equal(undefined);
  });
});
