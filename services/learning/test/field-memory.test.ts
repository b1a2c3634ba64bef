import { expect } from "chai";
import { learnedValue, planFill, rememberedFields } from "../src/domain/field-memory.js";
import type { Annotation, FieldContent, RememberedField } from "../src/domain/records.js";

const text = (value: string, values: string[] = []): FieldContent => ({ value, values });

describe("the learned value of a supplier's field (unit)", () => {
  it("is the only confirmation when there is one", () => {
    expect(learnedValue([text("CZ65")])).to.deep.equal(text("CZ65"));
  });

  it("is the most frequent of the latest five confirmations, newest first", () => {
    expect(learnedValue([text("NEW"), text("OLD"), text("OLD"), text("NEW"), text("OLD")])).to.deep.equal(text("OLD"));
    // Confirmations beyond the fifth do not count: the supplier changed its account three documents ago.
    expect(learnedValue([text("NEW"), text("NEW"), text("NEW"), text("OLD"), text("OLD"), text("OLD"), text("OLD")])).to.deep.equal(
      text("NEW"),
    );
  });

  it("goes to the most recently confirmed value on a tie", () => {
    expect(learnedValue([text("B"), text("A"), text("B"), text("A")])).to.deep.equal(text("B"));
  });

  it("is nothing when every confirmation differed (a field that changes with each document, like an invoice number)", () => {
    expect(learnedValue([text("INV-3"), text("INV-2"), text("INV-1")])).to.equal(undefined);
    expect(learnedValue([text("NEW-IBAN"), text("OLD-IBAN")])).to.equal(undefined);
  });

  it("is nothing when the field was confirmed empty most often", () => {
    expect(learnedValue([text(""), text(""), text("C-1")])).to.equal(undefined);
  });

  it("compares multi-value fields by all their values", () => {
    const both = text("19-2000145399/0800", ["178124-4159/0710"]);
    expect(learnedValue([both, text("19-2000145399/0800"), both])).to.deep.equal(both);
  });

  it("gives way to a pinned value of the same field", () => {
    const fields = rememberedFields(
      new Map([["contract", "PINNED"]]),
      new Map([
        ["contract", [text("LEARNED")]],
        ["iban", [text("CZ65")]],
      ]),
    );
    // A pin counts as one more confirmation of its value (1 of 2, + 1 over + 2: 50); one confirmation gives 67.
    expect(fields).to.deep.equal([
      { key: "contract", content: text("PINNED"), pinned: true, confidence: 50 },
      { key: "iban", content: text("CZ65"), pinned: false, confidence: 67 },
    ]);
  });

  it("gives a remembered value the rule of succession over its recent confirmations as confidence", () => {
    const confidence = (history: ReturnType<typeof text>[]) => rememberedFields(new Map(), new Map([["iban", history]]))[0]?.confidence;
    expect(confidence([text("A")])).to.equal(67);
    expect(confidence([text("A"), text("A"), text("A"), text("A"), text("A")])).to.equal(86);
    expect(confidence([text("A"), text("A"), text("B")])).to.equal(60);
  });
});

describe("what learning fills in a new document (unit)", () => {
  const learned = (key: string, value: string): RememberedField => ({ key, content: text(value), pinned: false, confidence: 67 });
  const pinned = (key: string, value: string): RememberedField => ({ key, content: text(value), pinned: true, confidence: 75 });

  it("fills absent and empty fields with learned values, marked learned, and leaves the AI's values", () => {
    const current: Annotation[] = [
      { key: "iban", value: "AI-IBAN", source: "ai" },
      { key: "contract", value: " ", source: "ai" },
    ];
    expect(planFill(current, [learned("iban", "CZ65"), learned("contract", "C-1"), learned("supplier_name", "Acme")])).to.deep.equal([
      { key: "contract", value: "C-1", source: "learned", confidence: 67 },
      { key: "supplier_name", value: "Acme", source: "learned", confidence: 67 },
    ]);
  });

  it("replaces the AI's value with a pinned one, but not a value set by a user, automation, validation or given at upload", () => {
    const current: Annotation[] = [
      { key: "iban", value: "AI-IBAN", source: "ai" },
      { key: "contract", value: "", source: "user" },
      { key: "due_date", value: "2024-01-01", source: "automation" },
      { key: "invoice_id", value: "X", source: "validation" },
      { key: "supplier_name", value: "Uploaded" },
    ];
    const memory = [
      pinned("iban", "CZ65"),
      pinned("contract", "C-1"),
      pinned("due_date", "2024-02-02"),
      pinned("invoice_id", "Y"),
      pinned("supplier_name", "Pinned"),
    ];
    expect(planFill(current, memory)).to.deep.equal([{ key: "iban", value: "CZ65", source: "learned", confidence: 75 }]);
  });

  it("corrects the built-in engine's guesses from text or OCR with learned values (not per-invoice fields), never its e-invoice values", () => {
    const current: Annotation[] = [
      { key: "iban", value: "CZ00-GUESS", source: "builtin:pdf_text" },
      { key: "invoice_id", value: "FV-OCR", source: "builtin:ocr" },
      { key: "supplier_name", value: "Exact s.r.o.", source: "builtin:einvoice" },
      { key: "contract", value: "C-9", source: "builtin:pdf_text" },
    ];
    const memory = [
      learned("iban", "CZ65"),
      learned("invoice_id", "FV-1"),
      learned("supplier_name", "Learned"),
      learned("contract", "C-9"),
    ];
    // invoice_id differs per invoice: a learned one never replaces what was read; a pinned one does.
    expect(planFill(current, memory)).to.deep.equal([{ key: "iban", value: "CZ65", source: "learned", confidence: 67 }]);
    expect(planFill(current, [pinned("supplier_name", "Pinned"), pinned("iban", "CZ65"), pinned("invoice_id", "FV-P")])).to.deep.equal([
      { key: "iban", value: "CZ65", source: "learned", confidence: 75 },
      { key: "invoice_id", value: "FV-P", source: "learned", confidence: 75 },
    ]);
  });

  it("fills a multi-value field with all its values", () => {
    const memory: RememberedField[] = [{ key: "bank_account", content: text("A", ["B", "C"]), pinned: false, confidence: 67 }];
    expect(planFill([], memory)).to.deep.equal([
      { key: "bank_account", value: "A", values: [{ value: "B" }, { value: "C" }], source: "learned", confidence: 67 },
    ]);
  });

  it("plans nothing for a document that already holds what the memory would fill", () => {
    const current: Annotation[] = [
      { key: "iban", value: "CZ65", source: "learned", confidence: 75 },
      { key: "contract", value: "C-1", source: "learned", confidence: 67 },
    ];
    expect(planFill(current, [pinned("iban", "CZ65"), learned("contract", "C-1")])).to.deep.equal([]);
  });
});
