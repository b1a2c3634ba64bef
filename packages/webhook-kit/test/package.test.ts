import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "chai";

const directory = fileURLToPath(new URL("..", import.meta.url));
const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

describe("the published package", () => {
  it("is publishable: public, versioned, licensed, with its exports and types", () => {
    expect(manifest.private).to.equal(undefined);
    expect(manifest.name).to.equal("@docex/webhook-kit");
    expect(manifest.version).to.equal("0.1.0");
    expect(manifest.license).to.be.oneOf(["MIT", "Apache-2.0"]);
    expect(manifest.publishConfig.access).to.equal("public");
    expect(manifest.exports["."]).to.deep.equal({ types: "./dist/index.d.ts", default: "./dist/index.js" });
  });

  it("has no runtime dependencies, and its code imports only node: modules and its own files", () => {
    expect(manifest.dependencies ?? {}).to.deep.equal({});
    expect(manifest.peerDependencies ?? {}).to.deep.equal({});
    const sources = readdirSync(new URL("../src", import.meta.url)).filter((name) => name.endsWith(".ts"));
    expect(sources).to.include("index.ts");
    for (const name of sources) {
      const text = readFileSync(new URL(`../src/${name}`, import.meta.url), "utf8");
      const specifiers = [...text.matchAll(/\bfrom\s+"([^"]+)"/g)].map((match) => match[1]);
      for (const specifier of specifiers) expect(specifier, `${name} imports ${specifier}`).to.match(/^(node:|\.\/)/);
    }
  });

  it("packs the built code, its sources for the source maps, the README and the license, and no tests", function () {
    this.timeout(60_000);
    const [pack] = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
        cwd: directory,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    const files = (pack.files as Array<{ path: string }>).map((file) => file.path);
    expect(files).to.include.members(["package.json", "README.md", "LICENSE", "dist/index.js", "dist/index.d.ts", "src/index.ts"]);
    expect(files.filter((file) => file.startsWith("test/"))).to.deep.equal([]);
  });
});
