import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { z } from "zod";
import { generatedFiles, replaceRegions, repositoryRoot } from "../src/generate.js";
import { gatewaySchema, serviceSchemas, settingsTable, shapeOf } from "../src/settings-tables.js";

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

// deploy/README.md's "Environment" table is written by hand (it says what compose sets, and only for the settings
// operators rely on), so it is checked instead: every variable it names is read by the processes it says read it.
/** Read by the OpenTelemetry SDK itself and in no schema: the schemas check OTEL_TRACES_SAMPLER, not its argument. */
const READ_BY_THE_SDK_ALONE = new Set(["OTEL_TRACES_SAMPLER_ARG"]);

describe("deploy/README.md's Environment table", () => {
  it("names only variables the schemas of its 'read by' processes read", async () => {
    const schemas = await serviceSchemas();
    const keysOf = (schema: unknown) => Object.keys(shapeOf(schema as Parameters<typeof shapeOf>[0]));
    const gateway = new Set(keysOf(await gatewaySchema()));
    const services = [...schemas].map(([name, schema]) => [name, new Set(keysOf(schema))] as const);
    const readers = (who: string): Set<string>[] =>
      who.split(",").flatMap((part) => {
        const name = part.trim();
        if (name === "all") return [gateway, ...services.map(([, keys]) => keys)];
        if (name === "services") return services.map(([, keys]) => keys);
        if (name === "gateway") return [gateway];
        const service = services.find(([candidate]) => candidate === name);
        if (!service) throw new Error(`deploy/README.md, Environment: unknown reader "${name}"`);
        return [service[1]];
      });
    const readme = readFileSync(path.join(repositoryRoot, "deploy/README.md"), "utf8");
    const section = readme.slice(readme.indexOf("\n## Environment\n"), readme.indexOf("\n## Tracing\n"));
    const wrong: string[] = [];
    for (const row of section.split("\n").filter((line) => /^\| `/.test(line))) {
      const [variables, who] = row
        .split("|")
        .slice(1, 3)
        .map((cell) => cell.trim()) as [string, string];
      if (who === "compose only") continue;
      for (const [, variable] of variables.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) {
        if (READ_BY_THE_SDK_ALONE.has(variable!)) continue;
        for (const keys of readers(who)) if (!keys.has(variable!)) wrong.push(`${variable} (read by ${who})`);
      }
    }
    expect([...new Set(wrong)]).to.deep.equal([]);
  });
});
