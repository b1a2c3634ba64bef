// Install scripts are decided, not inherited (issue 40): every package of the lockfile that has one and is
// installed on this platform is named in the root package.json's allowScripts, allowed (true) or denied
// (false). @scarf/scarf arrives transitively with a telemetry install script: it is denied by name.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

interface LockedPackage {
  hasInstallScript?: boolean;
  os?: string[];
  cpu?: string[];
}

describe("install scripts (package.json allowScripts)", () => {
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { allowScripts?: Record<string, boolean> };
  const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as { packages: Record<string, LockedPackage> };
  const fits = (values: string[] | undefined, current: string) =>
    !values || values.some((value) => value === current || (value.startsWith("!") ? value.slice(1) !== current : false));

  it("every package with an install script that installs here is allowed or denied by name", () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript && fits(entry.os, process.platform) && fits(entry.cpu, process.arch))
      .map(([location]) => location.split("node_modules/").pop() ?? location);
    const undecided = [...new Set(withScripts)].filter((name) => typeof manifest.allowScripts?.[name] !== "boolean");
    expect(undecided, "name them in allowScripts, true or false").to.deep.equal([]);
  });

  it("@scarf/scarf's telemetry install script is denied", () => {
    expect(manifest.allowScripts?.["@scarf/scarf"]).to.equal(false);
  });
});
