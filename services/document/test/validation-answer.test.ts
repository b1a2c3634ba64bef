import { DEFAULT_ANNOTATION_SCHEMA } from "@docex/annotations";
import { expect } from "chai";
import type { StoredDocument } from "../src/domain/records.js";
import type { ValidationAnswer } from "../src/domain/validation.js";
import { changeFromAnswer, noticeChange } from "../src/domain/validation-answer.js";

const document: StoredDocument = {
  id: "8f0c3c52-4c5e-4c1e-9d53-0b0e3f0e8a11",
  queueId: "0b7a4d2e-7f1c-4b8e-9a3d-5c6e7f8a9b0c",
  workspaceId: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
  organizationId: "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a",
  fileName: "invoice.pdf",
  fileContentType: null,
  fileSize: null,
  fileSha256: null,
  status: "to_validate",
  annotations: [
    { key: "bank_account", value: "123/0800", values: [{ value: "456/0100" }], source: "ai", confidence: 80 },
    { key: "total_due", value: "121.00", numericValue: 121, source: "ai", confidence: 90 },
    { key: "line_items", value: "", rows: [{ activity: { value: "Consulting" }, total_incl_tax: { value: "100.00", numericValue: 100 } }] },
  ],
  messages: [],
  options: {},
  approvers: [],
  approval: null,
  confidence: 90,
  automationBlockers: [],
  source: { channel: "api" },
  externalId: null,
  exports: [],
  version: 3,
  createdAt: new Date(),
  updatedAt: new Date(),
};

const answer = (parts: Partial<ValidationAnswer>): ValidationAnswer => ({
  replacements: [],
  messages: [],
  cells: [],
  options: {},
  ...parts,
});

describe("a validation answer checked against the schema and the document (unit)", () => {
  it("replaces a multi-value field's value and keeps its other values; the later of two replacements of one key counts", () => {
    const change = changeFromAnswer(
      DEFAULT_ANNOTATION_SCHEMA,
      document,
      answer({
        replacements: [
          { key: "bank_account", value: "first" },
          { key: "bank_account", value: "999/0300" },
        ],
      }),
    );
    expect(change.annotations).to.deep.equal([
      { key: "bank_account", value: "999/0300", values: [{ value: "456/0100" }], source: "validation" },
    ]);
    expect(change).to.include({ source: "validation", replaceMessages: true });
    expect(change.messages).to.deep.equal([]);
  });

  it("leaves out what equals the document already: a value, a cell", () => {
    const change = changeFromAnswer(
      DEFAULT_ANNOTATION_SCHEMA,
      document,
      answer({ replacements: [{ key: "total_due", value: "121.00" }], cells: [{ key: "total_incl_tax", rowIndex: 0, value: "100.00" }] }),
    );
    expect(change.annotations).to.deep.equal([]);
    expect(change.cells).to.deep.equal([]);
  });

  it("names in one warning what it leaves out: a table or column replaced as a field, an unknown row or column, a bad date", () => {
    const change = changeFromAnswer(
      DEFAULT_ANNOTATION_SCHEMA,
      document,
      answer({
        replacements: [
          { key: "line_items", value: "x" },
          { key: "activity", value: "x" },
          { key: "due_date", value: "31.2.2026" },
          { key: "ghost", value: "boo" },
        ],
        cells: [
          { key: "total_incl_tax", rowIndex: 3, value: "1" },
          { key: "colour", rowIndex: 0, value: "red" },
          { key: "activity", rowIndex: 0, value: "Audit" },
        ],
      }),
    );
    expect(change.annotations).to.deep.equal([]);
    expect(change.cells).to.deep.equal([{ key: "activity", rowIndex: 0, value: "Audit" }]);
    expect(change.messages).to.have.lengthOf(1);
    const [warning] = change.messages;
    expect(warning).to.include({ key: null, severity: "warning", notice: true });
    expect(warning!.message).to.match(/^Parts of the external validation's answer were ignored: /);
    expect(warning!.message).to.include('"line_items" belongs to a table').and.include('"activity" belongs to a table');
    expect(warning!.message).to.include("due_date: ").and.include('field "ghost" does not exist').and.include("line_items has no row 3");
    // Five problems are named; the unknown column is counted.
    expect(warning!.message).to.not.include("colour");
    expect(warning!.message).to.match(/; and 1 more\.$/);
  });

  it("keeps at most 500 messages and clips long ones to 2,000 characters", () => {
    const many = Array.from({ length: 510 }, (_, index) => ({ key: null, message: `m${index}`, severity: "info" as const }));
    const change = changeFromAnswer(
      DEFAULT_ANNOTATION_SCHEMA,
      document,
      answer({ messages: [{ key: "total_due", message: "x".repeat(5_000), severity: "error" }, ...many] }),
    );
    expect(change.messages).to.have.lengthOf(501);
    expect(change.messages[0]!.message).to.have.lengthOf(2_000);
    expect(change.messages.at(-1)!.message).to.include("11 messages beyond the first 500");
  });

  it("a failure's warning replaces only earlier warnings of its kind", () => {
    expect(noticeChange("External validation was unavailable (x).")).to.deep.include({
      replaceMessages: "notices",
      messages: [{ key: null, message: "External validation was unavailable (x).", severity: "warning", notice: true }],
      annotations: [],
      cells: [],
      options: {},
    });
  });
});
