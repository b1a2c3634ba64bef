import { expect } from "chai";
import { checkLearnSet } from "../src/domain/learn-set.js";
import { supplierIdentity, supplierIdsOf } from "../src/domain/supplier.js";

describe("supplier identity (unit)", () => {
  it("is the tax id, else the register id, else the normalised name", () => {
    expect(supplierIdentity({ taxId: "CZ 1234 5678", registerId: "123", name: "Acme" })?.key).to.equal("tax_id:CZ12345678");
    expect(supplierIdentity({ taxId: " ", registerId: "123 45-678", name: "Acme" })?.key).to.equal("register_id:12345678");
    expect(supplierIdentity({ taxId: null, registerId: null, name: "Žluťoučký kůň, s. r. o." })?.key).to.equal("name:zlutouckykunsro");
    expect(supplierIdentity({ taxId: null, registerId: null, name: "ZLUTOUCKY KUN s.r.o." })?.key).to.equal("name:zlutouckykunsro");
    expect(supplierIdentity({ taxId: "--", registerId: null, name: "..." })).to.equal(undefined);
  });

  it("of a document comes from its supplier_tax_id, supplier_register_id and supplier_name annotations", () => {
    const ids = supplierIdsOf([
      { key: "supplier_name", value: " Acme a.s. " },
      { key: "supplier_tax_id", value: "" },
      { key: "iban", value: "CZ65" },
    ]);
    expect(ids).to.deep.equal({ taxId: null, registerId: null, name: "Acme a.s." });
    expect(supplierIdentity(ids)?.key).to.equal("name:acmeas");
  });
});

describe("the learn annotation set against a queue's schema (unit)", () => {
  const schema = [
    { key: "iban", type: "string" },
    { key: "bank_account", type: "string", multi_value: true },
    { key: "total_due", type: "number" },
    { key: "due_date", type: "date" },
    { key: "line_items", type: "table", columns: [{ key: "total_incl_tax", type: "number" }] },
  ];

  it("returns the confirmed values of fields that are not tables, reading numbers and dates as the document service does", () => {
    const confirmed = checkLearnSet(schema, {
      bank_account: [{ value: "A" }, { value: "B" }],
      total_due: [{ value: "1.234,50", numeric_value: 1234.5 }],
      due_date: [{ value: "31. 3. 2024" }],
      iban: [],
      line_items: [{ total_incl_tax: [{ value: "1 000" }] }],
    });
    expect(confirmed).to.deep.equal([
      { key: "bank_account", content: { value: "A", values: ["B"] } },
      { key: "total_due", content: { value: "1.234,50", values: [] } },
      { key: "due_date", content: { value: "31. 3. 2024", values: [] } },
      { key: "iban", content: { value: "", values: [] } },
    ]);
  });

  it("names each bad entry in one 400", () => {
    try {
      checkLearnSet(schema, {
        total_due: [{ value: "1,2,3" }],
        due_date: [{ value: "2024-13-01", iso_date_value: "someday" }],
        line_items: ["row"],
      });
      expect.fail("accepted");
    } catch (error) {
      expect((error as { status: number }).status).to.equal(400);
      expect((error as { errors: Array<{ path: string }> }).errors.map((entry) => entry.path)).to.have.members([
        "annotations.total_due.0.value",
        "annotations.due_date.0.iso_date_value",
        "annotations.due_date.0.value",
        "annotations.line_items.0",
      ]);
    }
  });
});
