// Runs the unit tests of the alerting rules (deploy/monitoring/rule-tests) with promtool: the rules
// of each PrometheusRule of deploy/monitoring (and of CloudNativePG's, deploy/k8s/infra/postgres-cnpg), as kustomize
// renders them (their runbook_url filled in), are written as a Prometheus rule file beside copies of
// the tests, checked, and tested. Skipped where promtool is not installed (.ci/run installs it;
// PROMTOOL names another binary).
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { stringify } from "yaml";
import { renderKustomization } from "./support/kustomize.js";

const monitoringDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../deploy/monitoring");
/** Where PrometheusRules live: docex's and NATS's, and CloudNativePG's, applied with its Cluster. */
const ruleDirs = [monitoringDir, path.resolve(monitoringDir, "../k8s/infra/postgres-cnpg")];
const testsDir = path.join(monitoringDir, "rule-tests");
const promtool = process.env.PROMTOOL ?? "promtool";

interface PrometheusRule {
  kind: string;
  metadata: { name: string };
  spec: { groups: unknown[] };
}

describe("alerting rules (deploy/monitoring), unit-tested with promtool", () => {
  let workDir = "";

  before(function () {
    if (spawnSync(promtool, ["--version"]).status !== 0) this.skip();
    workDir = mkdtempSync(path.join(tmpdir(), "docex-rules-"));
    for (const object of ruleDirs.flatMap((dir) => renderKustomization(dir) as unknown as PrometheusRule[])) {
      if (object.kind !== "PrometheusRule") continue;
      writeFileSync(path.join(workDir, `${object.metadata.name}.rules.yaml`), stringify({ groups: object.spec.groups }));
    }
    for (const file of readdirSync(testsDir)) copyFileSync(path.join(testsDir, file), path.join(workDir, file));
  });

  after(() => {
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  const run = (...args: string[]) => {
    const result = spawnSync(promtool, args, { cwd: workDir, encoding: "utf8", timeout: 60_000 });
    return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
  };

  it("every PrometheusRule's rules pass `promtool check rules`", () => {
    const files = readdirSync(workDir).filter((name) => name.endsWith(".rules.yaml"));
    expect(files).to.include.members(["docex.rules.yaml", "docex-nats.rules.yaml", "docex-postgres.rules.yaml"]);
    for (const file of files) {
      const { ok, output } = run("check", "rules", file);
      expect(ok, output).to.equal(true);
    }
  });

  for (const file of readdirSync(testsDir).filter((name) => name.endsWith(".test.yaml"))) {
    it(`rule-tests/${file}: the alerts fire, stay quiet and say what the tests expect`, () => {
      const { ok, output } = run("test", "rules", file);
      expect(ok, output).to.equal(true);
    });
  }
});
