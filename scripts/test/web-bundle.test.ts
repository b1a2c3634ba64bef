import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { expect } from "chai";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const dist = path.join(root, "web/dist");

describe("the validation workspace's build (web/dist)", () => {
  it("loads at most 250 KB of JavaScript, gzipped, on first load (issue 37's budget)", () => {
    const html = readFileSync(path.join(dist, "index.html"), "utf8");
    const scripts = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="\/app\/([^"]+\.js)"/g)].map(
      (match) => match[1]!,
    );
    expect(scripts.length, "index.html loads the app's script").to.be.greaterThan(0);
    const gzipped = scripts.reduce((total, file) => total + gzipSync(readFileSync(path.join(dist, file)), { level: 9 }).length, 0);
    console.log(`      first-load JavaScript: ${(gzipped / 1024).toFixed(1)} KB gzipped in ${scripts.length} file(s)`);
    expect(gzipped).to.be.at.most(250 * 1024);
  });
});
