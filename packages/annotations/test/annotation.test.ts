import { expect } from "chai";
import { annotationFromService, annotationInput, readAnnotations, readFieldDefinitions } from "../src/index.js";

describe("annotation forms: one list of properties, three ways to treat one it does not know", () => {
  const newer = { key: "contract", value: "C-1", reviewedBy: "rule-7", rows: [{ activity: { value: "A", band: "high" } }] };

  it("the HTTP input refuses an unknown property (a client's misspelling is a 400)", () => {
    expect(annotationInput.safeParse(newer).success).to.equal(false);
    expect(annotationInput.safeParse({ key: "contract", value: "C-1" }).success).to.equal(true);
  });

  it("the owner drops a property a newer sender added, at the top and inside values", () => {
    expect(annotationFromService.parse(newer)).to.deep.equal({ key: "contract", value: "C-1", rows: [{ activity: { value: "A" } }] });
  });

  it("a consumer keeps it, so what it passes on loses nothing, and still checks what it uses", () => {
    expect(readAnnotations(JSON.stringify([newer]))).to.deep.equal([newer]);
    expect(readAnnotations("")).to.deep.equal([]);
    expect(() => readAnnotations(JSON.stringify([{ key: "contract", value: 7 }]))).to.throw();
    expect(() => readAnnotations("{not json")).to.throw();
  });

  it("reads a queue's annotation schema with properties a newer document service added", () => {
    const schema = [{ key: "total_due", label: "Total", type: "number", hint: "new" }];
    expect(readFieldDefinitions(JSON.stringify(schema))).to.deep.equal(schema);
    expect(() => readFieldDefinitions(JSON.stringify([{ key: "total_due", label: "Total", type: "colour" }]))).to.throw();
  });
});
