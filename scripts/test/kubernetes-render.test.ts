// The base, both overlays and monitoring render (with the test's renderer and `kubectl kustomize`,
// which must agree), every object validates against the Kubernetes schemas, and no Secret ships.
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { parse } from "yaml";
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
import {
  containersOf,
  find,
  findConfigMap,
  idOf,
  isWorkload,
  type K8sObject,
  ofKind,
  readManifests,
  sortKeys,
} from "./support/manifests.js";

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
      expect(monitoring.map((object) => object.kind).sort()).to.deep.equal([
        "ConfigMap",
        "PodMonitor",
        "PrometheusRule",
        "PrometheusRule",
        "PrometheusRule",
        "ServiceMonitor",
      ]);
      const problems = await schemaProblems(monitoring);
      expect(problems, problems.join("\n")).to.deep.equal([]);
    });

    it("no overlay ships a Secret: secrets are created in the cluster, never given values here", () => {
      for (const objects of [...Object.values(renders), monitoring]) expect(ofKind(objects, "Secret")).to.deep.equal([]);
    });
  });

  describe("production values", () => {
    it("production: this installation's host comes from one place, overlays/production/site.yaml: the Gateway's listeners and every HTTPRoute, AUTH_APP_URL and MAIL_FROM name it, and nothing names example.com", () => {
      const [site] = readManifests(path.join(k8sDir, "overlays/production/site.yaml"));
      const host = site?.data?.host ?? "";
      expect(host, "site.yaml's host").to.match(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
      const gateway = find<K8sObject & { spec: { listeners: { hostname?: string }[] } }>(renders.production, "Gateway", "docex");
      expect(gateway?.spec.listeners.map((listener) => listener.hostname)).to.deep.equal([host, host]);
      const routes = ofKind<K8sObject & { spec: { hostnames?: string[] } }>(renders.production, "HTTPRoute");
      expect(routes.length).to.equal(2);
      for (const route of routes) expect(route.spec.hostnames, route.metadata.name).to.deep.equal([host]);
      expect(ofKind(renders.production, "Ingress"), "the edge is the Gateway; the Ingress is an optional component").to.deep.equal([]);
      const auth = findConfigMap(renders.production, "auth-config")?.data ?? {};
      expect(new URL(auth.AUTH_APP_URL ?? "").host, "AUTH_APP_URL").to.equal(host);
      expect(new URL(auth.AUTH_APP_URL ?? "").pathname, "mailed links open the validation app").to.equal("/app");
      expect(auth.MAIL_FROM?.split("@")[1], "MAIL_FROM").to.equal(host);
      expect(find(renders.production, "ConfigMap", "docex-site"), "site.yaml stays with kustomize").to.equal(undefined);
      const text = JSON.stringify(renders.production);
      expect(text.match(/[\w.-]*\bexample\.(com|org|net)\b/g) ?? [], "example domains in the production render").to.deep.equal([]);
    });

    it("production: site.yaml's ingressRange is set to this installation's pod range, never left at a distribution's default, and is what the gateway trusts", () => {
      const [site] = readManifests(path.join(k8sDir, "overlays/production/site.yaml"));
      const range = site?.data?.ingressRange ?? "";
      expect(range, "ingressRange (required)").to.match(/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/);
      // The pod ranges clusters get when nobody chooses one: kind, kubeadm and minikube (flannel), k3s and RKE2,
      // Calico's, MicroK8s', Docker Desktop's, and the base's own.
      const DEFAULTS = ["10.244.0.0/16", "10.42.0.0/16", "192.168.0.0/16", "10.1.0.0/16", "10.1.0.0/24", "172.16.0.0/12", "10.0.0.0/8"];
      expect(DEFAULTS, `ingressRange ${range} is a default, not this cluster's pod range`).not.to.include(range);
      expect(Number(range.split("/")[1]), "a pod range, not a whole private block").to.be.within(9, 24);
      expect(findConfigMap(renders.production, "gateway-config")?.data?.GATEWAY_TRUSTED_PROXIES).to.equal(range);
    });

    it("production: every image, docex's and NATS's, is set in the overlay's images: from a registry, at a fixed version (no local, latest or floating minor tag)", () => {
      const kustomization = parse(readFileSync(path.join(k8sDir, "overlays/production/kustomization.yaml"), "utf8")) as {
        images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
      };
      const named = new Set((kustomization.images ?? []).map((image) => image.newName ?? image.name));
      const problems: string[] = [];
      for (const workload of renders.production.filter(isWorkload)) {
        for (const container of containersOf(workload.spec.template.spec)) {
          const [, name = "", tag, digest] = container.image.match(/^([^@]+?)(?::([^:/@]+))?(?:@(sha256:[0-9a-f]{64}))?$/) ?? [];
          const at = `${workload.metadata.name} container ${container.name}: ${container.image}`;
          if (!named.has(name)) problems.push(`${at} is not set in images:`);
          if (!digest && !/^v?\d+\.\d+\.\d+([-.][\w.-]+)?$/.test(tag ?? "")) problems.push(`${at} has no fixed version`);
          if (name.startsWith("docex/")) problems.push(`${at} is a local image`);
        }
      }
      expect(problems, problems.join("\n")).to.deep.equal([]);
    });
  });
});
