import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect } from "chai";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

interface ComposeCheck {
  name: string;
  ok: boolean;
  detail: string;
}

describe("docker-compose.yml and deploy/Dockerfile", () => {
  it("name every service, publish only the gateway, and agree with the ports, health checks and secrets of the code", async () => {
    const { checkCompose } = (await import(pathToFileURL(path.join(root, "deploy/check-compose.mjs")).href)) as {
      checkCompose: (options: { root: string }) => Promise<ComposeCheck[]>;
    };
    const results = await checkCompose({ root });
    const failures = results.filter((result) => !result.ok && !result.detail.startsWith("skipped"));
    expect(failures, failures.map((failure) => `${failure.name}: ${failure.detail}`).join("\n")).to.deep.equal([]);
    expect(results.length).to.be.greaterThan(10);
  });
});
