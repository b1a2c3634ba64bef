// Postgres on CloudNativePG (deploy/k8s/infra/postgres-cnpg), the production option in the cluster.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parser as promql } from "@prometheus-io/lezer-promql";
import { expect } from "chai";
import { parse, parseAllDocuments } from "yaml";
import {
  environmentOf,
  type KubernetesFacts,
  k8sDir,
  loadDeployment,
  type ProcessFacts,
  RENDER_NAMES,
  type RenderName,
  schemaProblems,
} from "./support/kubernetes.js";
import { kubectlKustomize, renderKustomization } from "./support/kustomize.js";
import {
  containersOf,
  find,
  findConfigMap,
  idOf,
  isObject,
  type K8sObject,
  type LabelSelector,
  ofKind,
  podRange,
  quantity,
  selects,
  sortKeys,
  surgeOf,
  type TopologySpread,
  type Workload,
} from "./support/manifests.js";
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
    /** CloudNativePG's and its Barman Cloud plugin's kinds, which have no schema here. */
    const ofKubernetes = (list: K8sObject[]) => list.filter((object) => !/\.cnpg\.io\//.test(object.apiVersion));
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
        topologySpreadConstraints?: TopologySpread[];
        enablePDB?: boolean;
        imageName?: string;
        postgresql?: { parameters?: Record<string, string> };
        plugins?: PluginReference[];
        bootstrap?: { recovery?: { source: string; recoveryTarget?: { targetTime?: string } } };
        externalClusters?: { name: string; plugin?: PluginReference }[];
      };
    };
    interface PluginReference {
      name: string;
      isWALArchiver?: boolean;
      parameters?: { barmanObjectName?: string; serverName?: string };
    }
    type ObjectStoreObject = K8sObject & {
      spec: {
        retentionPolicy?: string;
        configuration: {
          destinationPath: string;
          s3Credentials?: Record<string, { name: string; key: string } | boolean>;
          azureCredentials?: Record<string, { name: string; key: string } | boolean>;
          googleCredentials?: Record<string, { name: string; key: string } | boolean>;
        };
      };
    };
    const BARMAN_CLOUD = "barman-cloud.cloudnative-pg.io";
    const cluster = () => {
      const clusters = ofKind<ClusterObject>(objects, "Cluster");
      expect(clusters.length, "Clusters").to.equal(1);
      return clusters[0] as ClusterObject;
    };

    it("renders the same with `kubectl kustomize` (when installed), and its core and prometheus-operator objects validate", async function () {
      const problems = await schemaProblems(ofKubernetes(objects));
      expect(problems, problems.join("\n")).to.deep.equal([]);
      const theirs = kubectlKustomize(cnpgDir);
      if (!theirs) this.skip();
      const text = (list: K8sObject[]) => list.map((object) => JSON.stringify(sortKeys(object))).sort();
      expect(text(objects)).to.deep.equal(text(theirs));
    });

    it("runs Postgres pinned by full version and digest, and the restore drill (its Cluster and its Job's psql) runs the very same image", () => {
      const image = cluster().spec.imageName ?? "";
      // CloudNativePG's operand images: <major>.<minor>-<build timestamp>-<type>-<distribution>, by the index's digest.
      expect(image).to.match(/^ghcr\.io\/cloudnative-pg\/postgresql:\d+\.\d+-\d{12}-(minimal|standard)-[a-z]+@sha256:[0-9a-f]{64}$/);
      const drill = ofKind<ClusterObject>(renderKustomization(path.join(cnpgDir, "drill")), "Cluster")[0];
      expect(drill?.spec.imageName, "the drill's Cluster").to.equal(image);
      const job = ofKind<K8sObject & { spec: { jobTemplate: { spec: { template: { spec: Workload["spec"]["template"]["spec"] } } } } }>(
        objects,
        "CronJob",
      )[0];
      const psql = containersOf(job?.spec.jobTemplate.spec.template.spec ?? { containers: [] }).filter((container) =>
        container.image.startsWith("ghcr.io/cloudnative-pg/postgresql"),
      );
      expect(psql.length, "the drill Job's Postgres containers").to.be.greaterThan(0);
      for (const container of psql) expect(container.image, container.name).to.equal(image);
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

    it("its data and WAL volumes are sized from the volume it states (docex.io/sized-for): the data with bloat below the 80 % alert, the WAL for a week without archiving", () => {
      const { metadata, spec } = cluster();
      const stated = Object.fromEntries(
        (metadata.annotations?.["docex.io/sized-for"] ?? "").split(/\s+/).map((pair) => pair.split("=") as [string, string]),
      );
      const documents = Number(stated["documents-per-month"]) * Number(stated["months-kept"]);
      expect(documents, "documents kept").to.be.greaterThan(0);
      const perDocument =
        quantity(stated["database-bytes-per-document"]) +
        (stated["files-in"] === "postgres" ? quantity(stated["file-bytes-per-document"]) : 0);
      expect(["s3", "postgres"], "files-in").to.include(stated["files-in"]);
      expect(perDocument, "bytes per document").to.be.greaterThan(0);
      const BLOAT = 1.2;
      const ALERT_AT = 0.8;
      expect(quantity(spec.storage?.size), "storage.size").to.be.at.least((documents * perDocument * BLOAT) / ALERT_AT);
      const walPerDay = ((Number(stated["documents-per-month"]) / 30) * quantity(stated["database-bytes-per-document"]) * 3) as number;
      const maxWalSize = quantity(spec.postgresql?.parameters?.max_wal_size ?? "1Gi");
      const walStorage = (spec as { walStorage?: { size?: string } }).walStorage?.size;
      expect(quantity(walStorage), "walStorage.size").to.be.at.least((2 * maxWalSize + 7 * walPerDay) / ALERT_AT);
      // Production keeps the files where the statement says (S3: overlays/production's FILE_STORE_URL).
      const fileStore = findConfigMap(renders.production, "document-config")?.data?.FILE_STORE_URL ?? "";
      expect(fileStore.startsWith("s3://") ? "s3" : "postgres", "where production keeps files").to.equal(stated["files-in"]);
    });

    it("spreads its instances over zones (one per zone where there are three) and keeps the operator's PodDisruptionBudgets", () => {
      const { metadata, spec } = cluster();
      const instanceLabels = { "cnpg.io/cluster": metadata.name, "cnpg.io/podRole": "instance" };
      const poolerLabels = { "cnpg.io/cluster": metadata.name, "cnpg.io/podRole": "pooler" };
      const zoneSpread = (spec.topologySpreadConstraints ?? []).find(
        (constraint) => constraint.topologyKey === "topology.kubernetes.io/zone",
      );
      expect(zoneSpread, "a zone spread").to.not.equal(undefined);
      expect(zoneSpread?.maxSkew).to.equal(1);
      expect(zoneSpread?.whenUnsatisfiable, "required, as the quorum of a synchronous standby needs").to.equal("DoNotSchedule");
      expect(selects(zoneSpread?.labelSelector, instanceLabels), "selects the instances").to.equal(true);
      expect(selects(zoneSpread?.labelSelector, poolerLabels), "and no pooler").to.equal(false);
      expect(spec.enablePDB ?? true, "enablePDB").to.equal(true);
    });

    it("archives its WAL and takes a daily base backup with the Barman Cloud plugin to an object store whose credentials come from a Secret, kept for a retention window", () => {
      const { metadata, spec } = cluster();
      const archiver = (spec.plugins ?? []).filter((plugin) => plugin.isWALArchiver);
      expect(
        archiver.map((plugin) => plugin.name),
        "the WAL archiver",
      ).to.deep.equal([BARMAN_CLOUD]);
      const store = find<ObjectStoreObject>(objects, "ObjectStore", archiver[0]?.parameters?.barmanObjectName ?? "");
      expect(store?.apiVersion, "the ObjectStore the archiver names").to.equal("barmancloud.cnpg.io/v1");
      expect(archiver[0]?.parameters?.serverName ?? metadata.name, "archived under the Cluster's name").to.equal(metadata.name);
      const { configuration, retentionPolicy } = store?.spec ?? { configuration: { destinationPath: "" } };
      expect(configuration.destinationPath).to.match(/^(s3|gs|azure|https):\/\/[^/]+/);
      expect(retentionPolicy, "retentionPolicy").to.match(/^[1-9][0-9]*[dwm]$/);
      const credentials = configuration.s3Credentials ?? configuration.azureCredentials ?? configuration.googleCredentials ?? {};
      const references = Object.values(credentials).filter(isObject);
      expect(references.length, "credentials from a Secret").to.be.greaterThan(0);
      for (const reference of references) expect(Object.keys(reference).sort(), "a secretKeyRef").to.deep.equal(["key", "name"]);
      const schedules = ofKind<
        K8sObject & { spec: { schedule: string; cluster: { name: string }; method: string; pluginConfiguration?: { name: string } } }
      >(objects, "ScheduledBackup").filter((backup) => backup.spec.cluster.name === metadata.name);
      expect(schedules.length, "ScheduledBackups of the Cluster").to.equal(1);
      const [seconds, minutes, hours, ...rest] = schedules[0]?.spec.schedule.split(" ") ?? [];
      expect([seconds, minutes, rest], "daily: six fields, seconds first").to.deep.equal(["0", "0", ["*", "*", "*"]]);
      expect(Number(hours)).to.be.within(0, 23);
      expect(schedules[0]?.spec.method).to.equal("plugin");
      expect(schedules[0]?.spec.pluginConfiguration?.name).to.equal(BARMAN_CLOUD);
    });

    it("the restore drill (drill/) recovers another Cluster from the same backups to a point in time, archives nothing, and reaches only the operator, the object store and the API", async () => {
      const drillDir = path.join(cnpgDir, "drill");
      const drill = renderKustomization(drillDir);
      const theirs = kubectlKustomize(drillDir);
      if (theirs)
        expect(drill.map((object) => JSON.stringify(sortKeys(object))).sort()).to.deep.equal(
          theirs.map((object) => JSON.stringify(sortKeys(object))).sort(),
        );
      expect(await schemaProblems(ofKubernetes(drill))).to.deep.equal([]);
      const main = cluster();
      const restored = ofKind<ClusterObject>(drill, "Cluster");
      expect(restored.length).to.equal(1);
      const { metadata, spec } = restored[0] as ClusterObject;
      expect(metadata.name, "a Cluster of its own name").to.not.equal(main.metadata.name);
      expect(spec.imageName, "the same Postgres").to.equal(main.spec.imageName);
      expect(quantity(spec.storage?.size), "room for the data").to.be.at.least(quantity(main.spec.storage?.size));
      expect(spec.plugins ?? [], "archives nothing: it cannot write into the backups it reads").to.deep.equal([]);
      const recovery = spec.bootstrap?.recovery;
      const source = spec.externalClusters?.find((external) => external.name === recovery?.source);
      const archiver = main.spec.plugins?.find((plugin) => plugin.isWALArchiver);
      expect(source?.plugin?.name).to.equal(BARMAN_CLOUD);
      expect(source?.plugin?.parameters, "the store and server name docex-postgres archives to").to.deep.equal({
        barmanObjectName: archiver?.parameters?.barmanObjectName,
        serverName: archiver?.parameters?.serverName ?? main.metadata.name,
      });
      expect(Date.parse(recovery?.recoveryTarget?.targetTime?.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00") ?? ""), "a point in time")
        .to.not.be.NaN;
      const instance: Endpoint = { label: "the drill", namespace: "docex", labels: { "cnpg.io/cluster": metadata.name }, ip: "10.244.6.1" };
      const service: Endpoint = {
        label: "a service",
        namespace: "docex",
        labels: { "app.kubernetes.io/component": "service" },
        ip: "10.244.6.2",
      };
      const operator: Endpoint = { label: "the operator", namespace: "cnpg-system", labels: {}, ip: "10.244.6.3" };
      const objectStore: Endpoint = { label: "the object store", ip: "203.0.113.20" };
      const policies = [...ofKind<NetworkPolicy>(drill, "NetworkPolicy"), ...ofKind<NetworkPolicy>(renders.production, "NetworkPolicy")];
      const cases: [Endpoint, Endpoint, number, boolean][] = [
        [operator, instance, 8000, true],
        [instance, objectStore, 443, true],
        [service, instance, 5432, false],
        [instance, service, 5432, false],
      ];
      const wrong = cases
        .filter(([from, to, port, allowed]) => mayConnect(policies, from, to, port) !== allowed)
        .map(([from, to, port, allowed]) => `${from.label} → ${to.label}:${port} should be ${allowed ? "allowed" : "denied"}`);
      expect(wrong, wrong.join("\n")).to.deep.equal([]);
    });

    it("the restore drill runs every month: a Job recovers drill/cluster.yaml to a moment before it started, waits for it, checks it against the live Cluster with drill-check.sh, and deletes it, allowed only that", () => {
      type CronJob = K8sObject & {
        spec: {
          schedule: string;
          concurrencyPolicy?: string;
          jobTemplate: {
            spec: {
              backoffLimit?: number;
              template: { metadata?: { labels?: Record<string, string> }; spec: Workload["spec"]["template"]["spec"] };
            };
          };
        };
      };
      const cronJob = ofKind<CronJob>(objects, "CronJob")[0];
      expect(cronJob, "a CronJob").to.not.equal(undefined);
      const [minute, hour, dayOfMonth, month, dayOfWeek] = cronJob?.spec.schedule.split(" ") ?? [];
      expect(
        [minute, hour].every((field) => /^\d+$/.test(field ?? "")),
        "at a fixed time",
      ).to.equal(true);
      expect(month === "*" && (/^\d+$/.test(dayOfMonth ?? "") || dayOfWeek !== "*"), "at least every month").to.equal(true);
      expect(cronJob?.spec.concurrencyPolicy).to.equal("Forbid");
      expect(cronJob?.spec.jobTemplate.spec.backoffLimit, "a failed drill is not retried over its own remains").to.equal(0);
      const pod = cronJob?.spec.jobTemplate.spec.template.spec;
      const steps = [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])];
      expect(steps.map((container) => container.name)).to.deep.equal([
        "prepare",
        "remove-previous",
        "restore",
        "wait",
        "check",
        "clean-up",
      ]);
      const step = (name: string) => steps.find((container) => container.name === name);
      const configMap = find(objects, "ConfigMap", pod?.volumes?.find((volume) => volume.name === "drill")?.configMap?.name ?? "");
      expect(configMap?.data?.["cluster.yaml"], "the drill Cluster of drill/").to.equal(
        readFileSync(path.join(cnpgDir, "drill/cluster.yaml"), "utf8"),
      );
      expect(configMap?.data?.["drill-check.sh"], "the check restore-drill.test.ts runs").to.equal(
        readFileSync(path.join(cnpgDir, "drill-check.sh"), "utf8"),
      );
      expect(step("prepare")?.command?.join(" "))
        .to.match(/targetTime/)
        .and.to.match(/minutes ago/);
      expect(step("remove-previous")?.args?.slice(0, 3)).to.deep.equal(["delete", "cluster", "docex-postgres-drill"]);
      expect(step("restore")?.args).to.deep.equal(["apply", "-f", "/work/cluster.yaml"]);
      expect(step("wait")?.args?.slice(0, 2)).to.deep.equal(["wait", "cluster/docex-postgres-drill"]);
      expect(step("check")?.command?.join(" ")).to.include("/etc/drill/drill-check.sh");
      const checkEnv = Object.fromEntries((step("check")?.env ?? []).map((variable) => [variable.name, variable.value]));
      expect(checkEnv.SERVICES?.split(" ").sort(), "every service's database").to.deep.equal(
        processes
          .filter((process) => process.name !== "gateway")
          .map((process) => process.name)
          .sort(),
      );
      expect(step("clean-up")?.args?.slice(0, 3)).to.deep.equal(["delete", "cluster", "docex-postgres-drill"]);
      const role = find<K8sObject & { rules: { apiGroups: string[]; resources: string[] }[] }>(
        objects,
        "Role",
        "docex-postgres-restore-drill",
      );
      expect(role?.rules.map((rule) => `${rule.apiGroups}/${rule.resources}`)).to.deep.equal(["postgresql.cnpg.io/clusters"]);
      const drillPolicies = ofKind<NetworkPolicy>(renderKustomization(path.join(cnpgDir, "drill")), "NetworkPolicy");
      const policies = [...ofKind<NetworkPolicy>(objects, "NetworkPolicy"), ...drillPolicies].map((policy) => ({
        ...policy,
        metadata: { ...policy.metadata, namespace: "docex" },
      }));
      const job: Endpoint = {
        label: "the drill's Job",
        namespace: "docex",
        labels: pod ? (cronJob?.spec.jobTemplate.spec.template.metadata?.labels ?? {}) : {},
        ip: "10.244.6.1",
      };
      const live: Endpoint = {
        label: "a live instance",
        namespace: "docex",
        labels: { "cnpg.io/cluster": "docex-postgres", "app.kubernetes.io/component": "postgres" },
        ip: "10.244.6.2",
      };
      const drill: Endpoint = {
        label: "the drill instance",
        namespace: "docex",
        labels: { "cnpg.io/cluster": "docex-postgres-drill" },
        ip: "10.244.6.3",
      };
      const service: Endpoint = {
        label: "a service",
        namespace: "docex",
        labels: { "app.kubernetes.io/component": "service" },
        ip: "10.244.6.4",
      };
      const cases: [Endpoint, Endpoint, number, boolean][] = [
        [job, live, 5432, true],
        [job, drill, 5432, true],
        [job, { label: "the Kubernetes API", ip: "10.0.0.1" }, 443, true],
        [job, service, 8080, false],
        [service, drill, 5432, false],
        [job, live, 8000, false],
      ];
      const wrong = cases
        .filter(([from, to, port, allowed]) => mayConnect(policies, from, to, port) !== allowed)
        .map(([from, to, port, allowed]) => `${from.label} → ${to.label}:${port} should be ${allowed ? "allowed" : "denied"}`);
      expect(wrong, wrong.join("\n")).to.deep.equal([]);
    });

    it("the README's recipe renders (`kubectl kustomize`, when installed): production with the Cluster and components/postgres-cnpg-ca mounts the Cluster's CA, for verify-full, in every service and its migrate init container", async function () {
      if (spawnSync("kubectl", ["version", "--client"], { encoding: "utf8" }).status !== 0) this.skip();
      const dir = mkdtempSync(path.join(tmpdir(), "docex-cnpg-recipe-"));
      try {
        const relative = (target: string) => path.relative(dir, target);
        // deploy/README.md, "Postgres in production": the Cluster in production's resources, services-to-postgres
        // back to the Cluster's pods (the overlay's patch for an outside server removed), and the CA component.
        writeFileSync(
          path.join(dir, "kustomization.yaml"),
          [
            "apiVersion: kustomize.config.k8s.io/v1beta1",
            "kind: Kustomization",
            "namespace: docex",
            "resources:",
            `  - ${relative(path.join(k8sDir, "overlays/production"))}`,
            `  - ${relative(cnpgDir)}`,
            "components:",
            `  - ${relative(path.join(k8sDir, "components/postgres-cnpg-ca"))}`,
            "patches:",
            "  - target: { kind: NetworkPolicy, name: services-to-postgres }",
            "    patch: |-",
            "      - op: replace",
            "        path: /spec/egress/0/to",
            "        value: [{ podSelector: { matchLabels: { app.kubernetes.io/component: postgres } } }]",
            "",
          ].join("\n"),
        );
        const rendered = spawnSync("kubectl", ["kustomize", dir, "--load-restrictor", "LoadRestrictionsNone"], {
          encoding: "utf8",
          maxBuffer: 64 * 1024 * 1024,
        });
        expect(rendered.status, rendered.stderr).to.equal(0);
        const all = parseAllDocuments(rendered.stdout).map((document) => document.toJS() as K8sObject);
        const problems = await schemaProblems(ofKubernetes(all));
        expect(problems, problems.join("\n")).to.deep.equal([]);
        const clusterName = ofKind(all, "Cluster")[0]?.metadata.name;
        const services = ofKind<Workload>(all, "Deployment").filter(
          (deployment) => deployment.spec.template.metadata?.labels?.["app.kubernetes.io/component"] === "service",
        );
        expect(services.length).to.equal(processes.filter((process) => process.name !== "gateway").length);
        const wrong: string[] = [];
        for (const deployment of services) {
          const pod = deployment.spec.template.spec;
          const volume = pod.volumes?.find((candidate) => candidate.secret?.secretName === `${clusterName}-ca`);
          for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
            const file = container.env?.find((variable) => variable.name === "NODE_EXTRA_CA_CERTS")?.value ?? "";
            const mount = container.volumeMounts?.find((candidate) => candidate.name === volume?.name);
            const item = volume?.secret?.items?.find((candidate) => candidate.key === "ca.crt");
            if (!mount || file !== `${mount.mountPath}/${item?.path}` || mount.readOnly !== true)
              wrong.push(`${deployment.metadata.name}/${container.name}: NODE_EXTRA_CA_CERTS=${file}, mount ${JSON.stringify(mount)}`);
          }
        }
        expect(wrong, wrong.join("\n")).to.deep.equal([]);
        // The recipe's DATABASE_URL host is the Cluster's read-write Service, which CloudNativePG's server certificate names.
        expect(`${clusterName}-rw`).to.equal("docex-postgres-rw");
        const policies = ofKind<NetworkPolicy>(all, "NetworkPolicy");
        const service: Endpoint = {
          label: "a service",
          namespace: "docex",
          labels: { "app.kubernetes.io/component": "service" },
          ip: "10.244.7.1",
        };
        const instance: Endpoint = {
          label: "an instance",
          namespace: "docex",
          labels: { "cnpg.io/cluster": clusterName ?? "", "app.kubernetes.io/component": "postgres" },
          ip: "10.244.7.2",
        };
        expect(mayConnect(policies, service, instance, 5432), "services reach the Cluster").to.equal(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
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
    it("alerts on archiving (failing, and hung without a failure), a base backup older than 26 h or none at all, a recovery window shorter than the retention, replication lag and a missing replica, volumes over 80 %: over this Cluster's pods and volumes, each fired by a promtool test", () => {
      const { metadata } = cluster();
      const rules = ofKind<K8sObject & { spec: { groups: { rules: { alert: string; expr: string }[] }[] } }>(
        objects,
        "PrometheusRule",
      ).flatMap((rule) => rule.spec.groups.flatMap((group) => group.rules));
      const exprOf = (alert: string) =>
        rules
          .filter((rule) => rule.alert === alert)
          .map((rule) => rule.expr)
          .join("\n");
      const CNPG_METRICS = new Set([
        "cnpg_pg_stat_archiver_last_failed_time",
        "cnpg_pg_stat_archiver_last_archived_time",
        "cnpg_collector_pg_wal_archive_status",
        "cnpg_collector_up",
        "barman_cloud_cloudnative_pg_io_last_available_backup_timestamp",
        "barman_cloud_cloudnative_pg_io_first_recoverability_point",
        "cnpg_pg_replication_lag",
        "cnpg_pg_replication_streaming_replicas",
        "kubelet_volume_stats_used_bytes",
        "kubelet_volume_stats_capacity_bytes",
        // kube-state-metrics, for the monthly restore drill's Jobs
        "kube_job_status_failed",
        "kube_cronjob_status_last_successful_time",
        "kube_cronjob_created",
      ]);
      const drillJob = ofKind(objects, "CronJob")[0]?.metadata.name ?? "";
      const problems: string[] = [];
      for (const { alert, expr } of rules) {
        promql.parse(expr).iterate({
          enter(node) {
            if (node.type.isError) problems.push(`${alert}: syntax error at ${node.from}`);
            const name = expr.slice(node.from, node.to);
            if (node.name === "Identifier" && node.node.parent?.name === "VectorSelector" && !CNPG_METRICS.has(name))
              problems.push(`${alert}: ${name} is not a metric of CloudNativePG, its Barman Cloud plugin or the kubelet`);
          },
        });
        // Each selector names this Cluster's instances (pods docex-postgres-<n>, volumes docex-postgres-<n>[-wal]), never the drill's.
        for (const [, label, pattern] of expr.matchAll(/(pod|persistentvolumeclaim)=~"([^"]+)"/g)) {
          const matches = (value: string) => new RegExp(`^(?:${pattern})$`).test(value);
          if (!matches(`${metadata.name}-1`)) problems.push(`${alert}: ${label}=~"${pattern}" misses ${metadata.name}-1`);
          if (matches(`${metadata.name}-drill-1`)) problems.push(`${alert}: ${label}=~"${pattern}" takes in the drill`);
          if (label === "persistentvolumeclaim" && !matches(`${metadata.name}-1-wal`)) problems.push(`${alert}: misses the WAL volume`);
        }
        if (alert.startsWith("DocexRestoreDrill")) {
          for (const [, label, operator, value = ""] of expr.matchAll(/(job_name|cronjob)(=~?)"([^"]+)"/g)) {
            const names = label === "job_name" ? `${drillJob}-29412240` : drillJob;
            if (!(operator === "=" ? value === names : new RegExp(`^(?:${value})$`).test(names)))
              problems.push(`${alert}: ${label}${operator}"${value}" misses the CronJob ${drillJob}'s`);
          }
        } else if (!/\{[^}]*(pod|persistentvolumeclaim)=~/.test(expr)) problems.push(`${alert}: selects no pods or volumes of the Cluster`);
      }
      expect(problems, problems.join("\n")).to.deep.equal([]);
      expect(exprOf("DocexPostgresWalArchivingFailing")).to.include("cnpg_pg_stat_archiver_last_failed_time");
      expect(exprOf("DocexPostgresWalArchiveBehind")).to.include('value="ready"');
      expect(exprOf("DocexPostgresBackupTooOld")).to.match(/> 26 \* 3600\s*$/);
      expect(exprOf("DocexPostgresBackupUnreported")).to.include("unless");
      const retentionDays = Number(
        find<ObjectStoreObject>(objects, "ObjectStore", "docex-postgres-backups")?.spec.retentionPolicy?.match(/^(\d+)d$/)?.[1],
      );
      expect(exprOf("DocexPostgresRecoveryWindowShort"), "the ObjectStore's retention").to.include(`< ${retentionDays} * 86400`);
      expect(exprOf("DocexPostgresReplicationLag")).to.include("cnpg_pg_replication_lag");
      expect(exprOf("DocexPostgresReplicaMissing"), "instances - 1 replicas").to.match(
        new RegExp(`< ${cluster().spec.instances - 1}\\s*$`),
      );
      expect(exprOf("DocexPostgresVolumeFilling")).to.match(/> 0\.8\s*$/);
      // Every alert fires in deploy/monitoring/rule-tests/postgres-cnpg.test.yaml (monitoring-rules.test.ts runs it).
      const ruleTests = parse(readFileSync(path.join(k8sDir, "../monitoring/rule-tests/postgres-cnpg.test.yaml"), "utf8")) as {
        tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
      };
      const fired = new Set(
        ruleTests.tests.flatMap((test) =>
          (test.alert_rule_test ?? []).filter((check) => check.exp_alerts.length > 0).map((check) => check.alertname),
        ),
      );
      expect(
        [...new Set(rules.map((rule) => rule.alert))].filter((alert) => !fired.has(alert)),
        "alerts no test fires",
      ).to.deep.equal([]);
    });
  });

  describe("connections", () => {
    /** What a migrating pod opens besides its pool (kit's ensureDatabase and runMigrations: the check, the lock, the migrator's 3). */
    const MIGRATION_CONNECTIONS = 5;
    /** Left to others than docex's pools: superuser_reserved_connections (3), CloudNativePG's instance manager and exporter, an operator's psql. */
    const RESERVED_CONNECTIONS = 20;

    /** max_connections of the Postgres a render's services use: dev's StatefulSet, or else the CloudNativePG Cluster. */
    const maxConnectionsFor = (name: RenderName): number => {
      if (name === "dev") {
        const postgres = find<Workload>(renders.dev, "StatefulSet", "postgres")?.spec.template.spec.containers[0];
        const args = postgres?.args ?? [];
        const setting = args.find((arg, index) => args[index - 1] === "-c" && arg.startsWith("max_connections="));
        return Number(setting?.split("=")[1] ?? 100);
      }
      const cluster = ofKind<K8sObject & { spec: { postgresql?: { parameters?: Record<string, string> } } }>(
        renderKustomization(path.join(k8sDir, "infra/postgres-cnpg")),
        "Cluster",
      )[0];
      return Number(cluster?.spec.postgresql?.parameters?.max_connections ?? 100);
    };

    for (const name of RENDER_NAMES) {
      it(`${name}: in a rollout with every autoscaler at its maximum, each service's pools (replicas + surge) and its migrating pods fit Postgres's max_connections`, () => {
        const maxConnections = maxConnectionsFor(name);
        let demand = RESERVED_CONNECTIONS;
        const parts = [`${RESERVED_CONNECTIONS} reserved`];
        for (const process of processes.filter((candidate) => candidate.settings.has("DATABASE_URL"))) {
          const { deployment, effective } = environmentOf(renders[name], process.name);
          const pool = Number(process.schema.safeParse(effective).data?.DATABASE_POOL_MAX);
          const { max } = podRange(renders[name], deployment);
          const surge = surgeOf(deployment, max);
          const connections = (max + surge) * pool + surge * MIGRATION_CONNECTIONS;
          demand += connections;
          parts.push(`${process.name} (${max} + ${surge}) × ${pool} + ${surge} × ${MIGRATION_CONNECTIONS} = ${connections}`);
        }
        expect(demand, `max_connections ${maxConnections} < ${demand}: ${parts.join("; ")}`).to.be.at.most(maxConnections);
      });
    }
  });
});
