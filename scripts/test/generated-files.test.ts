import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { z } from "zod";
import { generatedFiles, replaceRegions, repositoryRoot } from "../src/generate.js";
import { settingsTable } from "../src/settings-tables.js";

// What generate.ts writes from the service list and the config schemas (manifests, README settings tables) is committed as it writes it: a hand edit of
// a generated file (or region), or a new service or setting without `npm run generate`, fails here.
const files = await generatedFiles();

describe("generated files are what scripts/src/generate.ts writes", () => {
  for (const { file, text } of files) {
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

describe("settings tables", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "settings-"));
  const source = path.join(folder, "config.ts");
  after(() => rmSync(folder, { recursive: true, force: true }));
  writeFileSync(
    source,
    [
      "export const configSchema = z.object({",
      "  /** Deadline of a call. */",
      "  A_DEADLINE_MS: z.coerce.number().default(1000),",
      "  /** The largest file. */",
      "  A_MAX_FILE_BYTES: z.coerce.number().default(26214400),",
      "  /** Workers. @default the cores */",
      "  A_WORKERS: z.coerce.number().default(3),",
      "  A_SECRET: z.string(),",
      "});",
      "",
    ].join("\n"),
  );
  const schema = z.object({
    A_DEADLINE_MS: z.coerce.number().default(1000),
    A_MAX_FILE_BYTES: z.coerce.number().default(26214400),
    A_WORKERS: z.coerce.number().default(3),
    A_SECRET: z.string(),
  });

  it("give each key of the schema a row: its default as the schema parses an unset variable, or the @default words", () => {
    expect(settingsTable(source, schema, new Set(["A_SECRET"]))).to.equal(
      [
        "| variable | default | meaning |",
        "|---|---|---|",
        "| `A_DEADLINE_MS` | 1000 | Deadline of a call. |",
        "| `A_MAX_FILE_BYTES` | 26214400 (25 MiB) | The largest file. |",
        "| `A_WORKERS` | the cores | Workers. |",
        "",
      ].join("\n"),
    );
  });

  it("refuse a setting without a doc comment: a new setting is explained where it is declared", () => {
    expect(() => settingsTable(source, schema, new Set())).to.throw(/no doc comment on A_SECRET/);
  });
});
