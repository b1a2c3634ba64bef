import { readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { generatedFiles, replaceRegions, repositoryRoot } from "../src/generate.js";

// What generate.ts writes from the service list and the config schemas is committed as it writes it: a hand edit of
// a generated file (or region), or a new service or setting without `npm run generate`, fails here.
describe("generated files are what scripts/src/generate.ts writes", () => {
  for (const { file, text } of generatedFiles()) {
    it(`${file} is up to date (npm run generate)`, () => {
      expect(readFileSync(path.join(repositoryRoot, file), "utf8"), `${file}: run npm run generate`).to.equal(text);
    });
  }
});

describe("generated regions", () => {
  const text =
    "kind: Kustomization\nresources:\n  # generated: begin resources (why)\n  - hand-edited.yaml\n  # generated: end\n  - kept.yaml\n";

  it("replace only the lines between their markers, keeping the markers and the hand-written rest", () => {
    expect(replaceRegions("k.yaml", text, { resources: "  - a.yaml\n  - b.yaml\n" })).to.equal(
      "kind: Kustomization\nresources:\n  # generated: begin resources (why)\n  - a.yaml\n  - b.yaml\n  # generated: end\n  - kept.yaml\n",
    );
  });

  it("refuse a file whose markers are missing, rather than leave its list as it was", () => {
    expect(() => replaceRegions("k.yaml", text, { replicas: "" })).to.throw(/no "generated: begin replicas" marker/);
    expect(() => replaceRegions("k.yaml", text.replace("  # generated: end\n", ""), { resources: "" })).to.throw(/no "generated: end"/);
  });
});
