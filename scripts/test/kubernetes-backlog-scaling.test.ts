// components/keda-backlog (issue 40 item 10): webhook and extraction scaled on their backlog by KEDA, in place of
// their CPU-only HorizontalPodAutoscalers, rendered with the production overlay as the README says and validated
// strictly (KEDA's schemas), with the consumers and metrics it reads checked against the code.
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { type KubernetesFacts, k8sDir, loadDeployment, type ProcessFacts, root, schemaProblems } from "./support/kubernetes.js";
import { renderWithComponents } from "./support/kustomize.js";
import { find, findConfigMap, type K8sObject, ofKind, sortKeys, type Workload } from "./support/manifests.js";
import { type Endpoint, mayConnect, type NetworkPolicy } from "./support/network-policy.js";
import { metricsOf, promqlProblems } from "./support/promql.js";
import { parseSource, promClientMetricNames } from "./support/typescript-source.js";

interface Trigger {
  type: string;
  metricType?: string;
  metadata: Record<string, string>;
}
type ScaledObject = K8sObject & {
  spec: {
    scaleTargetRef: { name: string; kind?: string };
    minReplicaCount: number;
    maxReplicaCount: number;
    advanced?: { horizontalPodAutoscalerConfig?: { behavior?: unknown } };
    triggers: Trigger[];
  };
};
type Hpa = K8sObject & {
  spec: { scaleTargetRef: { name: string }; minReplicas: number; maxReplicas: number; behavior?: unknown; metrics: unknown[] };
};

describe("Kubernetes: webhook and extraction scaled on their backlog (components/keda-backlog)", function () {
  this.timeout(60_000);
  let renders = {} as KubernetesFacts["renders"];
  let processes: ProcessFacts[] = [];
  let rendered: K8sObject[] = [];
  let kubectl: K8sObject[] | undefined;

  before(async () => {
    ({ renders, processes } = await loadDeployment());
    // deploy/README.md, "Scaling on the backlog": the component added to the production overlay.
    ({ objects: rendered, kubectl } = renderWithComponents(
      [path.join(k8sDir, "overlays/production")],
      [path.join(k8sDir, "components/keda-backlog")],
    ));
  });

  it("renders the same with `kubectl kustomize` (when installed), and every object validates strictly, the ScaledObjects against KEDA's schema", async () => {
    const problems = await schemaProblems(rendered);
    expect(problems, problems.join("\n")).to.deep.equal([]);
    if (kubectl) {
      const normal = (objects: K8sObject[]) => objects.map((object) => JSON.stringify(sortKeys(object))).sort();
      expect(normal(rendered)).to.deep.equal(normal(kubectl));
    }
  });

  it("webhook and extraction have a ScaledObject in place of their HPA, with production's bounds and slow scale-down, and CPU kept as a trigger", () => {
    const scaled = ofKind<ScaledObject>(rendered, "ScaledObject");
    expect(scaled.map((object) => object.spec.scaleTargetRef.name).sort()).to.deep.equal(["extraction", "webhook"]);
    for (const object of scaled) {
      const target = object.spec.scaleTargetRef.name;
      expect(find(rendered, "Deployment", target), `Deployment ${target}`).to.not.equal(undefined);
      expect(
        ofKind<Hpa>(rendered, "HorizontalPodAutoscaler").filter((hpa) => hpa.spec.scaleTargetRef.name === target),
        `no HPA of ours beside KEDA's for ${target}`,
      ).to.deep.equal([]);
      const replaced = ofKind<Hpa>(renders.production, "HorizontalPodAutoscaler").find((hpa) => hpa.spec.scaleTargetRef.name === target);
      expect([object.spec.minReplicaCount, object.spec.maxReplicaCount], `${target}'s bounds`).to.deep.equal([
        replaced?.spec.minReplicas,
        replaced?.spec.maxReplicas,
      ]);
      expect(object.spec.advanced?.horizontalPodAutoscalerConfig?.behavior, `${target}'s scale-down`).to.deep.equal(
        replaced?.spec.behavior,
      );
      expect(object.spec.triggers.find((trigger) => trigger.type === "cpu")?.metadata.value).to.equal("70");
    }
    // The other autoscalers stay.
    expect(
      ofKind<Hpa>(rendered, "HorizontalPodAutoscaler")
        .map((hpa) => hpa.metadata.name)
        .sort(),
    ).to.deep.equal(["document", "gateway"]);
  });

  it("the JetStream triggers read the services' own durable consumers on DOCEX, through the NATS servers' monitoring port, which KEDA's namespace may reach and nothing else new", () => {
    const scaled = ofKind<ScaledObject>(rendered, "ScaledObject");
    const consumerOf = (name: string) =>
      scaled.find((object) => object.metadata.name === name)?.spec.triggers.find((trigger) => trigger.type === "nats-jetstream")?.metadata;
    // The code's names: extraction's constant, and webhook's fan-out durable `${DATABASE_NAME}__document_status_changed`.
    const extractionSource = readFileSync(path.join(root, "services/extraction/src/domain/document-reader.ts"), "utf8");
    const extractionConsumer = extractionSource.match(/DOCUMENT_CREATED_CONSUMER = "([^"]+)"/)?.[1];
    const webhookDatabase = processes.find((process) => process.name === "webhook")?.defaults.DATABASE_NAME;
    expect(readFileSync(path.join(root, "services/webhook/src/events/delivery-fan-out.ts"), "utf8")).to.include(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
      'durable: `${deps.databaseName}__${type.replace(".", "_")}`',
    );
    expect(consumerOf("extraction")?.consumer).to.equal(extractionConsumer);
    expect(consumerOf("webhook")?.consumer).to.equal(`${webhookDatabase}__document_status_changed`);
    const stream = (findConfigMap(rendered, "docex-config")?.data?.NATS_STREAM ?? "DOCEX") as string;
    const nats = find<Workload>(rendered, "StatefulSet", "nats");
    const monitor = nats?.spec.template.spec.containers
      .find((container) => container.name === "nats")
      ?.ports?.find((port) => port.name === "monitor");
    for (const name of ["extraction", "webhook"]) {
      const metadata = consumerOf(name);
      expect(metadata?.stream).to.equal(stream);
      expect(metadata?.account, "the global account: docex's users belong to no other").to.equal("$G");
      expect(metadata?.natsServerMonitoringEndpoint).to.equal(
        `${nats?.spec.serviceName}.docex.svc.cluster.local:${monitor?.containerPort}`,
      );
      expect(Number(metadata?.lagThreshold)).to.be.greaterThan(0);
    }
    const policies = ofKind<NetworkPolicy>(rendered, "NetworkPolicy");
    const server: Endpoint = {
      label: "a NATS server",
      namespace: "docex",
      labels: nats?.spec.template.metadata?.labels ?? {},
      ip: "10.244.5.1",
      ports: nats?.spec.template.spec.containers.flatMap((container) => container.ports ?? []),
    };
    const keda: Endpoint = { label: "KEDA", namespace: "keda", labels: {}, ip: "10.244.9.5" };
    expect(mayConnect(policies, keda, server, monitor?.containerPort ?? 0), "KEDA → NATS monitoring").to.equal(true);
    expect(mayConnect(policies, keda, server, 4222), "KEDA → NATS clients' port").to.equal(false);
    expect(
      mayConnect(ofKind<NetworkPolicy>(renders.production, "NetworkPolicy"), keda, server, monitor?.containerPort ?? 0),
      "without the component",
    ).to.equal(false);
  });

  it("webhook's deliveries-due trigger asks Prometheus for a metric the webhook service defines", () => {
    const trigger = ofKind<ScaledObject>(rendered, "ScaledObject")
      .find((object) => object.metadata.name === "webhook")
      ?.spec.triggers.find((trigger) => trigger.type === "prometheus");
    const query = trigger?.metadata.query ?? "";
    expect(
      promqlProblems([{ alert: "the webhook trigger", expr: query }], new Set(["webhook_deliveries_due"]), "the webhook service"),
    ).to.deep.equal([]);
    expect(metricsOf(query)).to.deep.equal(["webhook_deliveries_due"]);
    const defined = promClientMetricNames(parseSource(path.join(root, "services/webhook/src/delivery/delivery-metrics.ts")));
    expect(defined).to.include("webhook_deliveries_due");
    expect(trigger?.metadata.serverAddress).to.match(/^https?:\/\//);
  });
});
