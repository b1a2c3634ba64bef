// Postgres on CloudNativePG (deploy/k8s/infra/postgres-cnpg), the production option in the cluster.
import path from "node:path";
import { expect } from "chai";
import { type KubernetesFacts, k8sDir, loadDeployment, type ProcessFacts, schemaProblems } from "./support/kubernetes.js";
import { kubectlKustomize, renderKustomization } from "./support/kustomize.js";
import { find, idOf, isObject, type K8sObject, type LabelSelector, ofKind, quantity, selects, sortKeys } from "./support/manifests.js";
import { type Endpoint, mayConnect, type NetworkPolicy } from "./support/network-policy.js";

describe("Kubernetes manifests: Postgres", function () {
  this.timeout(60_000);

  let renders = {} as KubernetesFacts["renders"];
  let processes: ProcessFacts[] = [];

  before(async () => {
    ({ renders, processes } = await loadDeployment());
  });

  describe("Postgres on CloudNativePG (infra/postgres-cnpg)", () => {
    const cnpgDir = path.join(k8sDir, "infra/postgres-cnpg");
    const CNPG_API = "postgresql.cnpg.io/v1";
    let objects: K8sObject[] = [];
    before(() => {
      objects = renderKustomization(cnpgDir);
    });
    type ClusterObject = K8sObject & {
      spec: {
        instances: number;
        storage?: { size?: string };
        inheritedMetadata?: { labels?: Record<string, string> };
        managed?: { roles?: { name: string; login?: boolean; passwordSecret?: Record<string, unknown> }[] };
        affinity?: { enablePodAntiAffinity?: boolean; topologyKey?: string };
      };
    };
    const cluster = () => {
      const clusters = ofKind<ClusterObject>(objects, "Cluster");
      expect(clusters.length, "Clusters").to.equal(1);
      return clusters[0] as ClusterObject;
    };

    it("renders the same with `kubectl kustomize` (when installed), and its core and prometheus-operator objects validate", async function () {
      const problems = await schemaProblems(objects.filter((object) => object.apiVersion !== CNPG_API));
      expect(problems, problems.join("\n")).to.deep.equal([]);
      const theirs = kubectlKustomize(cnpgDir);
      if (!theirs) this.skip();
      const text = (list: K8sObject[]) => list.map((object) => JSON.stringify(sortKeys(object))).sort();
      expect(text(objects)).to.deep.equal(text(theirs));
    });

    it("a Cluster of at least three instances on separate nodes, with persistent storage and pods the services' NetworkPolicy admits", () => {
      const { apiVersion, metadata, spec } = cluster();
      expect(apiVersion).to.equal(CNPG_API);
      expect(metadata.name).to.match(/^[a-z][a-z0-9-]*$/);
      expect(metadata.labels?.["app.kubernetes.io/part-of"]).to.equal("docex");
      expect(spec.instances).to.be.at.least(3);
      expect(quantity(spec.storage?.size), "storage.size").to.be.at.least(10 * 2 ** 30);
      expect(spec.affinity?.enablePodAntiAffinity).to.equal(true);
      expect(spec.affinity?.topologyKey).to.equal("kubernetes.io/hostname");
      const servicesToPostgres = find<NetworkPolicy>(renders.base, "NetworkPolicy", "services-to-postgres");
      const admitted = servicesToPostgres?.spec.egress?.some((rule) =>
        rule.to?.some((peer) => peer.podSelector && selects(peer.podSelector, spec.inheritedMetadata?.labels)),
      );
      expect(admitted, "services-to-postgres selects the Cluster's pods").to.equal(true);
    });

    it("a role and a database docex_<service> for every service with a database, owned by that role, with passwords only referenced", () => {
      const { metadata, spec } = cluster();
      const services = processes.filter((process) => process.settings.has("DATABASE_URL")).map((process) => process.name);
      const roles = spec.managed?.roles ?? [];
      expect(roles.map((role) => role.name).sort()).to.deep.equal(services.map((service) => `docex_${service}`).sort());
      for (const role of roles) {
        expect(role.login, role.name).to.equal(true);
        expect(Object.keys(role.passwordSecret ?? {}), `${role.name} passwordSecret`).to.deep.equal(["name"]);
      }
      const databases = ofKind<K8sObject & { spec: { name: string; owner: string; cluster: { name: string } } }>(objects, "Database");
      for (const service of services) {
        const defaultName = processes.find((process) => process.name === service)?.defaults.DATABASE_NAME;
        const database = databases.find((candidate) => candidate.spec.name === defaultName);
        expect(database?.apiVersion, `Database ${defaultName}`).to.equal(CNPG_API);
        expect(database?.spec.owner, `owner of ${defaultName}`).to.equal(`docex_${service}`);
        expect(database?.spec.cluster.name).to.equal(metadata.name);
      }
    });

    it("holds no secret: no Secret objects, no password or credentials in any field, no URL with a password", () => {
      expect(ofKind(objects, "Secret")).to.deep.equal([]);
      const problems: string[] = [];
      const walk = (value: unknown, at: string) => {
        if (Array.isArray(value)) {
          for (const [index, item] of value.entries()) walk(item, `${at}[${index}]`);
        } else if (isObject(value))
          for (const [key, child] of Object.entries(value)) {
            if (/password$|^(data|stringData)$|credentials?$/i.test(key) && !isObject(child)) problems.push(`${at}.${key}`);
            walk(child, `${at}.${key}`);
          }
        else if (typeof value === "string" && /:\/\/[^/\s:@]+:[^@\s]+@/.test(value)) problems.push(`${at}: a URL with a password`);
      };
      for (const object of objects) walk(object, idOf(object));
      expect(problems, problems.join("\n")).to.deep.equal([]);
    });

    it("Prometheus scrapes every instance's exporter, and the NetworkPolicy admits it, the operator and the services", () => {
      const { metadata } = cluster();
      const monitors = ofKind<K8sObject & { spec: { selector: LabelSelector; podMetricsEndpoints: { port: string }[] } }>(
        objects,
        "PodMonitor",
      );
      const podLabels = { "cnpg.io/cluster": metadata.name, "app.kubernetes.io/component": "postgres" };
      expect(
        monitors.some(
          (monitor) =>
            selects(monitor.spec.selector, podLabels) && monitor.spec.podMetricsEndpoints.some((endpoint) => endpoint.port === "metrics"),
        ),
        "a PodMonitor of the Cluster's pods",
      ).to.equal(true);
      const policies = ofKind<NetworkPolicy>(objects, "NetworkPolicy").map((policy) => ({
        ...policy,
        metadata: { ...policy.metadata, namespace: "docex" },
      }));
      const instance: Endpoint = { label: "a Postgres instance", namespace: "docex", labels: podLabels, ip: "10.244.5.1" };
      const other: Endpoint = { ...instance, label: "another instance", ip: "10.244.5.2" };
      const service: Endpoint = {
        label: "a service",
        namespace: "docex",
        labels: { "app.kubernetes.io/component": "service" },
        ip: "10.244.5.3",
      };
      const gateway: Endpoint = {
        label: "the gateway",
        namespace: "docex",
        labels: { "app.kubernetes.io/component": "gateway" },
        ip: "10.244.5.4",
      };
      const operator: Endpoint = { label: "the operator", namespace: "cnpg-system", labels: {}, ip: "10.244.5.5" };
      const prometheus: Endpoint = { label: "prometheus", namespace: "monitoring", labels: {}, ip: "10.244.5.6" };
      const apiServer: Endpoint = { label: "the Kubernetes API", ip: "10.0.0.1" };
      const cases: [Endpoint, Endpoint, number, boolean][] = [
        [service, instance, 5432, true],
        [gateway, instance, 5432, false],
        [other, instance, 5432, true],
        [operator, instance, 8000, true],
        [prometheus, instance, 9187, true],
        [prometheus, instance, 5432, false],
        [instance, apiServer, 443, true],
        [instance, other, 5432, true],
        [instance, service, 8080, false],
      ];
      const wrong = cases
        .filter(([from, to, port, allowed]) => mayConnect(policies, from, to, port) !== allowed)
        .map(([from, to, port, allowed]) => `${from.label} → ${to.label}:${port} should be ${allowed ? "allowed" : "denied"}`);
      expect(wrong, wrong.join("\n")).to.deep.equal([]);
    });
  });
});
