// The base, both overlays and monitoring render (with the test's renderer and `kubectl kustomize`,
// which must agree), every object validates against the Kubernetes schemas, and no Secret ships.
import path from "node:path";
import { expect } from "chai";
import {
  type KubernetesFacts,
  k8sDir,
  loadDeployment,
  monitoringDir,
  RENDERS,
  type RenderName,
  root,
  schemaProblems,
} from "./support/kubernetes.js";
import { kubectlKustomize } from "./support/kustomize.js";
import { idOf, type K8sObject, ofKind, sortKeys } from "./support/manifests.js";

describe("Kubernetes manifests: rendering", function () {
  this.timeout(60_000);

  let renders = {} as KubernetesFacts["renders"];
  let monitoring: K8sObject[] = [];

  before(async () => {
    ({ renders, monitoring } = await loadDeployment());
  });

  describe("rendering", () => {
    it("the test's renderer and `kubectl kustomize` (when installed) produce the same objects for the base, each overlay and monitoring", function () {
      const dirs = [...Object.values(RENDERS).map((dir) => path.join(k8sDir, dir)), monitoringDir];
      const theirs = dirs.map((dir) => kubectlKustomize(dir));
      if (theirs.some((rendered) => rendered === undefined)) this.skip();
      const ours = [...Object.keys(RENDERS).map((name) => renders[name as RenderName]), monitoring];
      dirs.forEach((dir, index) => {
        const byId = (objects: K8sObject[]) => Object.fromEntries(objects.map((object) => [idOf(object), object]));
        const mine = byId(ours[index] ?? []);
        const kustomize = byId(theirs[index] ?? []);
        const differing = [...new Set([...Object.keys(mine), ...Object.keys(kustomize)])].filter(
          (id) => JSON.stringify(sortKeys(mine[id])) !== JSON.stringify(sortKeys(kustomize[id])),
        );
        expect(
          differing,
          `${path.relative(root, dir)}: ${differing.map((id) => `${id}\n  ours:      ${JSON.stringify(sortKeys(mine[id]))}\n  kustomize: ${JSON.stringify(sortKeys(kustomize[id]))}`).join("\n")}`,
        ).to.deep.equal([]);
      });
    });

    for (const name of Object.keys(RENDERS) as RenderName[]) {
      it(`${name}: every object validates against its Kubernetes schema and uses only known field names`, async () => {
        expect(renders[name].length).to.be.greaterThan(20);
        const problems = await schemaProblems(renders[name]);
        expect(problems, problems.join("\n")).to.deep.equal([]);
      });
    }

    it("monitoring: the ServiceMonitor, PrometheusRule and dashboard ConfigMap validate against their schemas", async () => {
      expect(monitoring.map((object) => object.kind).sort()).to.deep.equal(["ConfigMap", "PrometheusRule", "ServiceMonitor"]);
      const problems = await schemaProblems(monitoring);
      expect(problems, problems.join("\n")).to.deep.equal([]);
    });

    it("no overlay ships a Secret: secrets are created in the cluster, never given values here", () => {
      for (const objects of [...Object.values(renders), monitoring]) expect(ofKind(objects, "Secret")).to.deep.equal([]);
    });
  });
});
