// Tracing on Kubernetes (issue 21): the base points every process at the Service otel-collector and lets
// it reach it; every container starts with the kit's tracing register; the optional component
// deploy/k8s/components/tracing runs that collector with Jaeger behind it, reachable on exactly those paths.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tracingConfigFields } from "@docex/kit/config";
import { expect } from "chai";
import { parse, parseAllDocuments } from "yaml";
import { z } from "zod";
import { renderKustomization } from "./support/kustomize.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const k8sDir = path.join(root, "deploy/k8s");
const componentDir = path.join(k8sDir, "components/tracing");
const TRACING_REGISTER = "@docex/kit/tracing/register";

interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}
interface PolicyRule {
  to?: { podSelector?: Selector }[];
  from?: { podSelector?: Selector }[];
  ports?: { port?: number | string; protocol?: string }[];
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  readinessProbe?: unknown;
  livenessProbe?: unknown;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
}
type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: manifests are read field by field
  [field: string]: any;
};

const manifests = (file: string): K8sObject[] =>
  parseAllDocuments(readFileSync(file, "utf8"))
    .map((document) => document.toJS() as K8sObject | null)
    .filter((object): object is K8sObject => object !== null);
const find = (objects: K8sObject[], kind: string, name: string) => {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};
const selects = (selector: Selector | undefined, labels: Record<string, string>) =>
  Object.entries(selector?.matchLabels ?? {}).every(([key, value]) => labels[key] === value) &&
  (selector?.matchExpressions ?? []).every(({ key, operator, values = [] }) =>
    operator === "In" ? values.includes(labels[key] ?? "") : operator === "NotIn" ? !values.includes(labels[key] ?? "") : true,
  );
const admitsPort = (rule: PolicyRule, port: number) => (rule.ports ?? []).some((entry) => Number(entry.port) === port);
const labelsOf = (deployment: K8sObject): Record<string, string> => deployment.spec.template.metadata.labels;

const baseFiles = ["gateway", "auth", "membership", "document", "automation", "learning", "register", "webhook", "extraction", "audit"];
const base = [
  ...baseFiles.map((name) => path.join(k8sDir, "base", `${name}.yaml`)),
  path.join(k8sDir, "base/network-policies.yaml"),
].flatMap(manifests);
/** docex-config, as kustomize generates it from base/docex.env. */
const docexConfig: Record<string, string> = Object.fromEntries(
  readFileSync(path.join(k8sDir, "base/docex.env"), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("#"))
    .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
);
const component = manifests(path.join(componentDir, "otel-collector.yaml"))
  .concat(manifests(path.join(componentDir, "jaeger.yaml")))
  .concat(manifests(path.join(componentDir, "network-policies.yaml")));
const docexDeployments = base.filter((object) => object.kind === "Deployment");
const renderProduction = () => renderKustomization(path.join(k8sDir, "overlays/production")) as K8sObject[];

describe("Kubernetes: tracing (docex-config, the register, the NetworkPolicy and components/tracing)", () => {
  it("docex-config (base/docex.env) sends every process's traces to the Service otel-collector over OTLP/HTTP, with settings the processes accept", () => {
    const data = docexConfig;
    expect(data.OTEL_EXPORTER_OTLP_ENDPOINT).to.equal("http://otel-collector:4318");
    expect(data.OTEL_EXPORTER_OTLP_PROTOCOL).to.equal("http/protobuf");
    const parsed = z.object(tracingConfigFields).safeParse(data);
    expect(parsed.error?.issues ?? []).to.deep.equal([]);
  });

  it("production: tracing is off (OTEL_SDK_DISABLED) unless the overlay runs a collector behind the Service otel-collector", () => {
    const production = renderProduction();
    const config = production.find((object) => object.kind === "ConfigMap" && /^docex-config-/.test(object.metadata.name))?.data ?? {};
    const collector = production.some((object) => object.kind === "Service" && object.metadata.name === "otel-collector");
    expect(collector || config.OTEL_SDK_DISABLED === "true", "spans sent to a collector that is not there").to.equal(true);
    expect(z.enum(["true", "false"]).safeParse(config.OTEL_SDK_DISABLED ?? "false").success).to.equal(true);
  });

  it("every container of docex (services, their migrate init containers, the gateway's image) starts with the tracing register", () => {
    const dockerfile = readFileSync(path.join(root, "deploy/Dockerfile"), "utf8");
    const problems: string[] = [];
    for (const deployment of docexDeployments) {
      const pod = deployment.spec.template.spec as { containers: Container[]; initContainers?: Container[] };
      for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
        const command = container.command;
        // Node's own flags (register's heap size) may stand first; the register comes before the main module.
        const flags = command?.slice(1).filter((arg) => arg.startsWith("--max-old-space-size")) ?? [];
        const rest = command?.filter((arg) => !flags.includes(arg));
        if (rest && (rest[0] !== "node" || rest[1] !== "--import" || rest[2] !== TRACING_REGISTER))
          problems.push(`${deployment.metadata.name}/${container.name}: ${JSON.stringify(command)}`);
      }
      // Containers without a command run the image's CMD: its stage must load the register.
      const stage = dockerfile.split(/^FROM /m).find((part) => part.includes(`AS svc-${deployment.metadata.name}\n`));
      const cmd = stage?.match(/^CMD (\[.*\])$/m)?.[1];
      const parsed = cmd ? (JSON.parse(cmd) as string[]) : [];
      if (parsed[1] !== "--import" || parsed[2] !== TRACING_REGISTER) problems.push(`svc-${deployment.metadata.name} CMD ${cmd}`);
    }
    expect(docexDeployments.length).to.equal(baseFiles.length);
    expect(problems, problems.join("\n")).to.deep.equal([]);
  });

  it("the base lets the gateway and every service reach the collector's pods on 4318, and nothing else through that policy", () => {
    const policy = find(base, "NetworkPolicy", "traces-to-collector");
    expect(policy.spec.policyTypes).to.deep.equal(["Egress"]);
    for (const deployment of docexDeployments)
      expect(selects(policy.spec.podSelector, labelsOf(deployment)), deployment.metadata.name).to.equal(true);
    const collectorLabels = labelsOf(find(component, "Deployment", "otel-collector"));
    const rules = policy.spec.egress as PolicyRule[];
    expect(rules.every((rule) => (rule.to ?? []).every((peer) => selects(peer.podSelector, collectorLabels)))).to.equal(true);
    expect(rules.every((rule) => (rule.ports ?? []).every((port) => Number(port.port) === 4318))).to.equal(true);
    expect(selects(rules[0]!.to![0]!.podSelector, labelsOf(find(component, "Deployment", "jaeger")))).to.equal(false);
  });

  it("components/tracing: a collector behind the Service otel-collector exports to Jaeger, and its NetworkPolicies open exactly docex → collector → Jaeger", () => {
    const kustomization = parse(readFileSync(path.join(componentDir, "kustomization.yaml"), "utf8")) as {
      kind: string;
      resources: string[];
    };
    expect(kustomization.kind).to.equal("Component");
    expect(kustomization.resources).to.have.members(["otel-collector.yaml", "jaeger.yaml", "network-policies.yaml"]);

    const collectorService = find(component, "Service", "otel-collector");
    expect(collectorService.spec.ports.map((port: { port: number }) => port.port)).to.deep.equal([4318]);
    const collectorConfig = parse(find(component, "ConfigMap", "otel-collector-config").data["config.yaml"]) as {
      receivers: { otlp: { protocols: { http: { endpoint: string } } } };
      exporters: Record<string, { endpoint: string }>;
      service: { pipelines: { traces: { receivers: string[]; exporters: string[] } } };
    };
    expect(collectorConfig.receivers.otlp.protocols.http.endpoint).to.equal("0.0.0.0:4318");
    const [exporter] = collectorConfig.service.pipelines.traces.exporters;
    expect(collectorConfig.exporters[exporter!]?.endpoint).to.equal("jaeger:4317");
    const jaegerService = find(component, "Service", "jaeger");
    expect(jaegerService.spec.ports.map((port: { port: number }) => port.port)).to.include(4317);

    const collector = labelsOf(find(component, "Deployment", "otel-collector"));
    const jaeger = labelsOf(find(component, "Deployment", "jaeger"));
    const ingressOf = (name: string) => find(component, "NetworkPolicy", name).spec.ingress as PolicyRule[];
    const admits = (policy: string, from: Record<string, string>, port: number) =>
      ingressOf(policy).some((rule) => admitsPort(rule, port) && (rule.from ?? []).some((peer) => selects(peer.podSelector, from)));
    for (const deployment of docexDeployments)
      expect(admits("otel-collector", labelsOf(deployment), 4318), deployment.metadata.name).to.equal(true);
    expect(admits("otel-collector", jaeger, 4318)).to.equal(false);
    expect(admits("jaeger", collector, 4317)).to.equal(true);
    for (const deployment of docexDeployments) expect(admits("jaeger", labelsOf(deployment), 4317)).to.equal(false);
    const collectorEgress = find(component, "NetworkPolicy", "otel-collector").spec.egress as PolicyRule[];
    expect(
      collectorEgress.some((rule) => admitsPort(rule, 4317) && (rule.to ?? []).some((peer) => selects(peer.podSelector, jaeger))),
    ).to.equal(true);
  });

  it("components/tracing: its pods run as non-root on read-only root filesystems, with probes and resource limits", () => {
    for (const name of ["otel-collector", "jaeger"]) {
      const deployment = find(component, "Deployment", name);
      const pod = deployment.spec.template.spec as { securityContext?: { runAsNonRoot?: boolean }; containers: Container[] };
      expect(pod.securityContext?.runAsNonRoot, name).to.equal(true);
      for (const container of pod.containers) {
        expect(container.securityContext, name).to.include({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
        expect(container.resources?.limits, name).to.have.keys("cpu", "memory");
        expect(container.readinessProbe, name).to.not.equal(undefined);
        expect(container.livenessProbe, name).to.not.equal(undefined);
        expect(container.image, name).to.match(/:\d+\.\d+\.\d+$/);
      }
    }
  });

  it("an overlay with the component renders with `kubectl kustomize` (when installed): every tracing object in the docex namespace", function () {
    if (spawnSync("kubectl", ["version", "--client"], { encoding: "utf8" }).status !== 0) this.skip();
    const dir = mkdtempSync(path.join(tmpdir(), "docex-tracing-overlay-"));
    try {
      const relative = (target: string) => path.relative(dir, target);
      writeFileSync(
        path.join(dir, "kustomization.yaml"),
        [
          "apiVersion: kustomize.config.k8s.io/v1beta1",
          "kind: Kustomization",
          "namespace: docex",
          "resources:",
          `  - ${relative(path.join(k8sDir, "overlays/dev"))}`,
          "components:",
          `  - ${relative(componentDir)}`,
          "",
        ].join("\n"),
      );
      const rendered = spawnSync("kubectl", ["kustomize", dir, "--load-restrictor", "LoadRestrictionsNone"], { encoding: "utf8" });
      expect(rendered.status, rendered.stderr).to.equal(0);
      const objects = parseAllDocuments(rendered.stdout).map((document) => document.toJS() as K8sObject);
      const tracing = objects.filter((object) => object.metadata.labels?.["app.kubernetes.io/component"] === "tracing");
      expect(tracing.map((object) => `${object.kind}/${object.metadata.name}`)).to.include.members([
        "Deployment/otel-collector",
        "Service/otel-collector",
        "Deployment/jaeger",
        "Service/jaeger",
      ]);
      expect(tracing.every((object) => object.metadata.namespace === "docex")).to.equal(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
