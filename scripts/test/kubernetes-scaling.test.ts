// Keeps the Kubernetes rules of issue 20 true in the base and both overlays: every service is called through
// dns:/// of a headless Service (so callers balance over its pods, round robin), every pod's grace period is above
// the stop time the code bounds, and the readiness probe waits longer than the kit's own checks.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SERVICE_NAMES, SERVICE_PORTS, type ServiceName, serviceConfigSchema } from "@docex/kit/config";
import { CLOSE_TIMEOUT_MS } from "@docex/kit/runtime";
import { expect } from "chai";
import { renderKustomization } from "./support/kustomize.js";
import { find, type K8sObject, ofKind } from "./support/manifests.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const RENDERS = { base: "base", dev: "overlays/dev", production: "overlays/production" } as const;
/** How long the kit waits for one readiness check before it counts as failed (`Readiness.report`). */
const KIT_CHECK_TIMEOUT_SECONDS = 2;

interface Probe {
  httpGet?: { path: string; port: string | number };
  timeoutSeconds?: number;
}
interface Container {
  name: string;
  env?: { name: string; value?: string }[];
  envFrom?: { configMapRef?: { name: string } }[];
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { sleep?: { seconds: number } } };
}
interface Deployment extends K8sObject {
  spec: {
    template: { metadata?: { labels?: Record<string, string> }; spec: { containers: Container[]; terminationGracePeriodSeconds?: number } };
  };
}
interface ServiceObject extends K8sObject {
  spec: {
    clusterIP?: string;
    publishNotReadyAddresses?: boolean;
    selector?: Record<string, string>;
    ports: { name?: string; port: number; targetPort?: string | number }[];
  };
}

/** The settings a Deployment's container gets from its ConfigMaps and literal values. */
function settingsOf(objects: K8sObject[], deployment: Deployment): { container: Container; settings: Record<string, string> } {
  const name = deployment.metadata.name;
  const container = deployment.spec.template.spec.containers.find((candidate) => candidate.name === name);
  if (!container) throw new Error(`Deployment ${name} has no container named ${name}`);
  const settings: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const configMap = source.configMapRef && find(objects, "ConfigMap", source.configMapRef.name);
    Object.assign(settings, configMap?.data ?? {});
  }
  for (const variable of container.env ?? []) if (variable.value !== undefined) settings[variable.name] = variable.value;
  return { container, settings };
}

/** The services other processes call over gRPC: those with a `<NAME>_GRPC_ADDR` setting in the kit's config. */
const CALLED_SERVICES = Object.keys(serviceConfigSchema("auth").shape)
  .filter((key) => key.endsWith("_GRPC_ADDR"))
  .map((key) => key.slice(0, -"_GRPC_ADDR".length).toLowerCase() as ServiceName);

describe("Kubernetes manifests scale out (issue 20): headless gRPC Services, grace periods, readiness probes", () => {
  const renders = Object.fromEntries(
    Object.entries(RENDERS).map(([name, dir]) => [name, renderKustomization(path.join(root, "deploy/k8s", dir))]),
  ) as Record<keyof typeof RENDERS, K8sObject[]>;

  it("every service called over gRPC is named by the kit's config", () => {
    expect(CALLED_SERVICES).to.have.length.above(0);
    for (const name of CALLED_SERVICES) expect(SERVICE_NAMES).to.include(name);
  });

  for (const [renderName, objects] of Object.entries(renders)) {
    it(`${renderName}: every <NAME>_GRPC_ADDR every process reads is dns:/// of <name>-grpc, a headless Service of the callee's ready pods on its grpc port`, () => {
      const problems: string[] = [];
      for (const callee of CALLED_SERVICES) {
        const port = SERVICE_PORTS[callee].grpc;
        const headless = find<ServiceObject>(objects, "Service", `${callee}-grpc`);
        const pods = find<Deployment>(objects, "Deployment", callee)?.spec.template.metadata?.labels ?? {};
        if (!headless) {
          problems.push(`no Service ${callee}-grpc`);
          continue;
        }
        if (headless.spec.clusterIP !== "None") problems.push(`${callee}-grpc is not headless (clusterIP ${headless.spec.clusterIP})`);
        if (headless.spec.publishNotReadyAddresses) problems.push(`${callee}-grpc publishes pods that are not ready`);
        const selector = Object.entries(headless.spec.selector ?? {});
        if (selector.length === 0 || selector.some(([key, value]) => pods[key] !== value))
          problems.push(`${callee}-grpc does not select the pods of Deployment ${callee}`);
        const grpcPort = headless.spec.ports.find((candidate) => candidate.name === "grpc");
        if (grpcPort?.port !== port || grpcPort.targetPort !== "grpc") problems.push(`${callee}-grpc has no port grpc ${port} → grpc`);
        if (headless.spec.ports.length !== 1) problems.push(`${callee}-grpc serves more than gRPC`);
      }
      for (const deployment of ofKind<Deployment>(objects, "Deployment")) {
        if (!SERVICE_NAMES.includes(deployment.metadata.name as ServiceName)) continue;
        const { settings } = settingsOf(objects, deployment);
        for (const callee of CALLED_SERVICES) {
          const key = `${callee.toUpperCase()}_GRPC_ADDR`;
          const expected = `dns:///${callee}-grpc:${SERVICE_PORTS[callee].grpc}`;
          if (settings[key] !== expected)
            problems.push(`${deployment.metadata.name}: ${key}=${settings[key] ?? "(the code's default)"}, not ${expected}`);
        }
      }
      expect(problems, problems.join("\n")).to.deep.equal([]);
    });

    it(`${renderName}: every process's terminationGracePeriodSeconds is above its worst stop (preStop sleep, SHUTDOWN_TIMEOUT_MS, and for services CLOSE_TIMEOUT_MS)`, () => {
      const problems: string[] = [];
      const processes = ofKind<Deployment>(objects, "Deployment").filter(
        (deployment) => deployment.metadata.name === "gateway" || SERVICE_NAMES.includes(deployment.metadata.name as ServiceName),
      );
      expect(processes).to.have.length(SERVICE_NAMES.length + 1);
      for (const deployment of processes) {
        const name = deployment.metadata.name;
        const { container, settings } = settingsOf(objects, deployment);
        const shutdownMs = Number(settings.SHUTDOWN_TIMEOUT_MS ?? serviceConfigSchema("auth").shape.SHUTDOWN_TIMEOUT_MS.parse(undefined));
        const preStop = container.lifecycle?.preStop?.sleep?.seconds ?? 0;
        // The gateway closes no connections of its own after its HTTP drain; services close clients, NATS and Postgres.
        const worst = preStop + shutdownMs / 1000 + (name === "gateway" ? 0 : CLOSE_TIMEOUT_MS / 1000);
        const grace = deployment.spec.template.spec.terminationGracePeriodSeconds ?? 30;
        if (!(grace > worst)) problems.push(`${name}: terminationGracePeriodSeconds ${grace}, worst stop ${worst} s`);
      }
      expect(problems, problems.join("\n")).to.deep.equal([]);
    });

    it(`${renderName}: readiness probes wait longer than the kit's ${KIT_CHECK_TIMEOUT_SECONDS} s per check, so a slow check answers 503 rather than a probe timeout`, () => {
      const problems: string[] = [];
      for (const deployment of ofKind<Deployment>(objects, "Deployment")) {
        const name = deployment.metadata.name;
        if (name !== "gateway" && !SERVICE_NAMES.includes(name as ServiceName)) continue;
        const probe = settingsOf(objects, deployment).container.readinessProbe;
        if (probe?.httpGet?.path !== "/readyz") problems.push(`${name}: readiness does not ask /readyz`);
        if (!((probe?.timeoutSeconds ?? 1) > KIT_CHECK_TIMEOUT_SECONDS))
          problems.push(`${name}: readiness timeoutSeconds ${probe?.timeoutSeconds ?? 1}`);
      }
      expect(problems, problems.join("\n")).to.deep.equal([]);
    });
  }
});
