// Rollouts that stop on a bad pod and scale-downs that do not undo the last burst (issue 40, item 10): every
// Deployment and StatefulSet waits minReadySeconds, spread constraints count only the new revision's pods,
// NATS, Postgres and the gateway have PriorityClasses that deploy/k8s/cluster defines, every pod that writes to
// /tmp has ephemeral-storage requests and limits covering it, every autoscaler scales down slowly, and the
// namespace is created by deploy/k8s/cluster only, so deleting an overlay never deletes the data in it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { type KubernetesFacts, k8sDir, loadDeployment, RENDER_NAMES, schemaProblems } from "./support/kubernetes.js";
import { kubectlKustomize, renderKustomization } from "./support/kustomize.js";
import { find, idOf, isWorkload, type K8sObject, ofKind, quantity, sortKeys, type Workload } from "./support/manifests.js";

const clusterDir = path.join(k8sDir, "cluster");
/** The least time a new pod must stay ready before a rollout counts it: two readiness probes of 5 s. */
const MIN_READY_SECONDS = 10;

interface Autoscaler extends K8sObject {
  spec: {
    scaleTargetRef: { kind: string; name: string };
    behavior?: {
      scaleDown?: { stabilizationWindowSeconds?: number; policies?: { type: string; value: number; periodSeconds: number }[] };
    };
  };
}
type RolloutSpec = Workload["spec"] & { minReadySeconds?: number };
type Pod = Workload["spec"]["template"]["spec"] & {
  priorityClassName?: string;
  topologySpreadConstraints?: { topologyKey: string; matchLabelKeys?: string[] }[];
};
interface PriorityClass extends K8sObject {
  value: number;
  globalDefault?: boolean;
  preemptionPolicy?: string;
}

const workloadsOf = (objects: K8sObject[]) =>
  objects.filter(isWorkload).filter((workload) => workload.kind === "Deployment" || workload.kind === "StatefulSet");
const podOf = (workload: Workload) => workload.spec.template.spec as Pod;

describe("Kubernetes: rollouts (issue 40 item 10)", function () {
  this.timeout(60_000);

  let renders = {} as KubernetesFacts["renders"];
  let cluster: K8sObject[] = [];
  before(async () => {
    ({ renders } = await loadDeployment());
    cluster = renderKustomization(clusterDir);
  });

  it("every Deployment and StatefulSet of each render (and of components/tracing) waits minReadySeconds (≥ 10 s) before counting a new pod available", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "docex-rollouts-tracing-"));
    let tracing: K8sObject[] = [];
    try {
      writeFileSync(
        path.join(dir, "kustomization.yaml"),
        [
          "apiVersion: kustomize.config.k8s.io/v1beta1",
          "kind: Kustomization",
          "namespace: docex",
          "resources:",
          `  - ${path.relative(dir, path.join(k8sDir, "overlays/dev"))}`,
          "components:",
          `  - ${path.relative(dir, path.join(k8sDir, "components/tracing"))}`,
          "",
        ].join("\n"),
      );
      tracing = renderKustomization(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(workloadsOf(tracing).map((workload) => workload.metadata.name)).to.include.members(["otel-collector", "jaeger"]);
    for (const [name, objects] of [
      ...RENDER_NAMES.map((render) => [render, renders[render]] as const),
      ["dev+tracing", tracing] as const,
    ]) {
      const short = workloadsOf(objects)
        .filter((workload) => ((workload.spec as RolloutSpec).minReadySeconds ?? 0) < MIN_READY_SECONDS)
        .map((workload) => `${name}: ${idOf(workload)}`);
      expect(short).to.deep.equal([]);
      expect(workloadsOf(objects).length, name).to.be.greaterThan(10);
    }
  });

  it("every spread constraint of a Deployment counts only its own revision's pods (matchLabelKeys: [pod-template-hash]); production has them on every Deployment", () => {
    for (const name of RENDER_NAMES) {
      for (const workload of workloadsOf(renders[name]).filter((candidate) => candidate.kind === "Deployment")) {
        for (const constraint of podOf(workload).topologySpreadConstraints ?? []) {
          expect(constraint.matchLabelKeys, `${name}: ${idOf(workload)} ${constraint.topologyKey}`).to.deep.equal(["pod-template-hash"]);
        }
      }
    }
    const deployments = workloadsOf(renders.production).filter((workload) => workload.kind === "Deployment");
    expect(deployments.filter((workload) => (podOf(workload).topologySpreadConstraints ?? []).length === 0).map(idOf)).to.deep.equal([]);
  });

  it("deploy/k8s/cluster defines the PriorityClasses: NATS and Postgres above the gateway, below the system's own, none the default", () => {
    const classes = ofKind<PriorityClass>(cluster, "PriorityClass");
    expect(classes.map((object) => object.metadata.name).sort()).to.deep.equal(["docex-data", "docex-edge"]);
    const value = (className: string) => find<PriorityClass>(cluster, "PriorityClass", className)?.value ?? Number.NaN;
    expect(value("docex-data")).to.be.greaterThan(value("docex-edge"));
    expect(value("docex-edge")).to.be.greaterThan(0);
    expect(value("docex-data")).to.be.below(1_000_000_000, "user classes stay below system-cluster-critical and system-node-critical");
    for (const object of classes) expect(object.globalDefault ?? false, object.metadata.name).to.equal(false);
  });

  it("NATS, Postgres (dev's StatefulSet and the CloudNativePG Cluster) and the gateway name those classes; every class a pod names is defined", () => {
    const defined = new Set(ofKind(cluster, "PriorityClass").map((object) => object.metadata.name));
    const expected: Record<string, string> = { nats: "docex-data", postgres: "docex-data", gateway: "docex-edge" };
    for (const name of RENDER_NAMES) {
      for (const workload of workloadsOf(renders[name])) {
        const className = podOf(workload).priorityClassName;
        if (className !== undefined) expect(defined, `${name}: ${idOf(workload)}`).to.include(className);
        if (workload.metadata.name in expected) expect(className, `${name}: ${idOf(workload)}`).to.equal(expected[workload.metadata.name]);
      }
    }
    expect(find(renders.production, "StatefulSet", "nats"), "production runs NATS").not.to.equal(undefined);
    expect(find(renders.dev, "StatefulSet", "postgres"), "dev runs Postgres").not.to.equal(undefined);
    const [postgresCluster] = ofKind<K8sObject & { spec: { priorityClassName?: string } }>(
      renderKustomization(path.join(k8sDir, "infra/postgres-cnpg")),
      "Cluster",
    );
    expect(postgresCluster?.spec.priorityClassName).to.equal("docex-data");
  });

  it("every container that mounts a writable emptyDir (/tmp) requests and limits ephemeral-storage, and the pod's limits cover its emptyDirs' size limits", () => {
    const problems: string[] = [];
    for (const name of RENDER_NAMES) {
      for (const workload of workloadsOf(renders[name])) {
        const pod = podOf(workload);
        const emptyDirs = new Map(
          (pod.volumes ?? [])
            .filter((volume) => volume.emptyDir !== undefined)
            .map((volume) => [volume.name, volume.emptyDir as { sizeLimit?: string; medium?: string }]),
        );
        const at = `${name}: ${idOf(workload)}`;
        const tmp = [...(pod.initContainers ?? []), ...pod.containers].flatMap((container) =>
          (container.volumeMounts ?? []).filter((mount) => mount.mountPath === "/tmp").map((mount) => ({ container, mount })),
        );
        for (const { container, mount } of tmp) {
          const volume = emptyDirs.get(mount.name);
          if (!volume) continue;
          if (!volume.sizeLimit) problems.push(`${at}: emptyDir ${mount.name} has no sizeLimit`);
          const requested = quantity(container.resources?.requests?.["ephemeral-storage"]);
          const limited = quantity(container.resources?.limits?.["ephemeral-storage"]);
          if (!(requested > 0)) problems.push(`${at}: ${container.name} requests no ephemeral-storage`);
          if (!(limited >= quantity(volume.sizeLimit)))
            problems.push(`${at}: ${container.name}'s ephemeral-storage limit is below /tmp's sizeLimit`);
          if (requested > limited) problems.push(`${at}: ${container.name} requests more ephemeral-storage than its limit`);
        }
        // The kubelet evicts a pod whose emptyDirs, logs and writable layers pass the sum of its containers' limits.
        const diskBound = [...emptyDirs.values()].filter((volume) => volume.medium !== "Memory");
        if (tmp.length > 0) {
          const sum = pod.containers.reduce(
            (total, container) => total + quantity(container.resources?.limits?.["ephemeral-storage"] ?? "0"),
            0,
          );
          const sizes = diskBound.reduce((total, volume) => total + quantity(volume.sizeLimit ?? "0"), 0);
          if (!(sum > sizes)) problems.push(`${at}: containers' ephemeral-storage limits ${sum} do not exceed its emptyDirs ${sizes}`);
        }
      }
    }
    expect(problems, problems.join("\n")).to.deep.equal([]);
    // The three the review named: extraction's readers, document's upload spool, intake.
    for (const service of ["extraction", "document", "intake"]) {
      const deployment = find<Workload>(renders.production, "Deployment", service);
      const container = deployment?.spec.template.spec.containers.find((candidate) => candidate.name === service);
      expect(container?.resources?.limits?.["ephemeral-storage"], service).to.be.a("string");
    }
  });

  it("every HorizontalPodAutoscaler scales down after a 5-minute window and at most one pod a minute", () => {
    for (const name of RENDER_NAMES) {
      for (const autoscaler of ofKind<Autoscaler>(renders[name], "HorizontalPodAutoscaler")) {
        const scaleDown = autoscaler.spec.behavior?.scaleDown;
        const at = `${name}: ${idOf(autoscaler)}`;
        expect(scaleDown?.stabilizationWindowSeconds ?? 0, at).to.be.at.least(300);
        expect(scaleDown?.policies ?? [], at).to.deep.equal([{ type: "Pods", value: 1, periodSeconds: 60 }]);
      }
    }
    expect(ofKind(renders.production, "HorizontalPodAutoscaler").length).to.equal(4);
  });

  it("the namespace is in deploy/k8s/cluster alone (restricted Pod Security): no overlay creates it, so deleting one keeps the data", async () => {
    for (const name of RENDER_NAMES) expect(ofKind(renders[name], "Namespace").map(idOf), name).to.deep.equal([]);
    const namespace = find(cluster, "Namespace", "docex");
    expect(namespace?.metadata.labels?.["pod-security.kubernetes.io/enforce"]).to.equal("restricted");
    // Every namespaced object of an overlay lands in the namespace the cluster kustomization creates.
    for (const name of RENDER_NAMES) {
      const elsewhere = renders[name].filter((object) => object.metadata.namespace !== "docex").map(idOf);
      expect(elsewhere, name).to.deep.equal([]);
    }
    const problems = await schemaProblems(cluster);
    expect(problems, problems.join("\n")).to.deep.equal([]);
  });

  it("deploy/k8s/cluster renders the same with `kubectl kustomize` (when installed)", function () {
    const theirs = kubectlKustomize(clusterDir);
    if (!theirs) this.skip();
    const normal = (objects: K8sObject[]) => objects.map((object) => JSON.stringify(sortKeys(object))).sort();
    expect(normal(theirs)).to.deep.equal(normal(cluster));
  });
});
