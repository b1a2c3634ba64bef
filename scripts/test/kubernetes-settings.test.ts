// Every setting a process reads is set in deploy/k8s or deliberately left to the code's default
// (LEFT_TO_THE_CODE), the configuration passes each process's own schema, secrets are only
// referenced, and addresses name Services and ports that exist.
import { expect } from "chai";
import {
  environmentOf,
  type KubernetesFacts,
  LEFT_TO_THE_CODE,
  loadDeployment,
  looksSecret,
  type ProcessFacts,
  RENDER_NAMES,
  RENDERS,
  type RenderName,
} from "./support/kubernetes.js";
import {
  containersOf,
  find,
  findConfigMap,
  isWorkload,
  ofKind,
  podRange,
  type ServiceObject,
  type Workload,
  withoutNameHash,
} from "./support/manifests.js";

describe("Kubernetes manifests: settings", function () {
  this.timeout(60_000);

  let renders = {} as KubernetesFacts["renders"];
  let processes: ProcessFacts[] = [];
  const processNames = () => processes.map((process) => process.name);
  const serviceNames = () => processNames().filter((name) => name !== "gateway");

  before(async () => {
    ({ renders, processes } = await loadDeployment());
  });

  describe("configuration and secrets", () => {
    for (const name of Object.keys(RENDERS) as RenderName[]) {
      it(`${name}: every setting a process reads is set in a ConfigMap or from a Secret, or is listed in LEFT_TO_THE_CODE`, () => {
        const problems: string[] = [];
        for (const process of processes) {
          const { fromConfigMaps, literals, secretRefs } = environmentOf(renders[name], process.name);
          for (const [setting, { optional }] of process.settings) {
            const set = fromConfigMaps.has(setting) || literals.has(setting) || secretRefs.has(setting);
            if (set) continue;
            if (!optional) problems.push(`${process.name}: ${setting} has no default and is not set`);
            else if (!(setting in LEFT_TO_THE_CODE))
              problems.push(`${process.name}: ${setting} is read by the code but neither set in deploy/k8s nor listed in LEFT_TO_THE_CODE`);
          }
          const ownConfigMap = findConfigMap(renders[name], `${process.name}-config`);
          for (const key of Object.keys(ownConfigMap?.data ?? {})) {
            if (!process.settings.has(key)) problems.push(`${process.name}-config sets ${key}, which ${process.name} does not read`);
          }
          for (const key of [...literals.keys(), ...secretRefs.keys()]) {
            if (!process.settings.has(key)) problems.push(`${process.name} sets ${key}, which it does not read`);
          }
        }
        for (const key of Object.keys(findConfigMap(renders[name], "docex-config")?.data ?? {})) {
          if (!processes.some((process) => process.settings.has(key))) problems.push(`docex-config sets ${key}, which no process reads`);
        }
        for (const setting of Object.keys(LEFT_TO_THE_CODE)) {
          if (!processes.some((process) => process.settings.has(setting)))
            problems.push(`LEFT_TO_THE_CODE lists ${setting}, which no process reads`);
        }
        expect(problems, problems.join("\n")).to.deep.equal([]);
      });

      it(`${name}: the configuration of each process passes its own config schema`, () => {
        for (const process of processes) {
          const { effective } = environmentOf(renders[name], process.name);
          const result = process.schema.safeParse(effective);
          const issues = (result.error?.issues ?? []).map((issue) => `${issue.path.join(".")}: ${issue.message}`);
          expect(issues, `${process.name}:\n${issues.join("\n")}`).to.deep.equal([]);
        }
      });

      it(`${name}: secrets come only from the process's own Secret, never from a ConfigMap or a literal`, () => {
        const problems: string[] = [];
        for (const configMap of ofKind(renders[name], "ConfigMap")) {
          for (const key of Object.keys(configMap.data ?? {})) {
            if (looksSecret(key)) problems.push(`ConfigMap ${configMap.metadata.name} holds ${key}`);
          }
        }
        for (const process of processes) {
          const { literals, secretRefs } = environmentOf(renders[name], process.name);
          for (const key of literals.keys()) if (looksSecret(key)) problems.push(`${process.name} gives ${key} a literal value`);
          for (const [key, ref] of secretRefs) {
            if (ref.name !== `${process.name}-secrets`)
              problems.push(`${process.name} reads ${key} from Secret ${ref.name}, not ${process.name}-secrets`);
            if (!process.settings.get(key)?.optional && ref.optional)
              problems.push(`${process.name}: required ${key} is an optional secret reference`);
          }
          for (const setting of process.settings.keys()) {
            if (looksSecret(setting) && !secretRefs.has(setting) && !(setting in LEFT_TO_THE_CODE))
              problems.push(`${process.name} reads ${setting} but not from its Secret`);
          }
        }
        expect(problems, problems.join("\n")).to.deep.equal([]);
      });
    }

    for (const name of ["dev", "production"] as const) {
      it(`${name}: addresses in the configuration name Services and ports that exist (gRPC, HTTP, JWKS, NATS)`, () => {
        const problems: string[] = [];
        const servicePort = (host: string, port: number) =>
          find<ServiceObject>(renders[name], "Service", host)?.spec.ports.find((candidate) => candidate.port === port);
        const jwksPath = new URL(String(processes.find((process) => process.name === "auth")?.defaults.AUTH_JWKS_URL)).pathname;
        for (const process of processes) {
          const { effective } = environmentOf(renders[name], process.name);
          for (const [key, value] of Object.entries(effective)) {
            if (key.endsWith("_GRPC_ADDR")) {
              // dns:/// of the callee's headless Service <callee>-grpc (kubernetes-scaling.test.ts checks it is headless).
              const [, host = "", port] = value.match(/^dns:\/\/\/([^:/]+):(\d+)$/) ?? [];
              const callee = key.slice(0, -"_GRPC_ADDR".length).toLowerCase();
              if (host !== `${callee}-grpc` || servicePort(host, Number(port))?.name !== "grpc")
                problems.push(`${process.name}: ${key}=${value}`);
            }
            const target = key.replace(/_URL$/, "").toLowerCase();
            if (process.name === "gateway" && key.endsWith("_URL") && serviceNames().includes(target)) {
              const url = new URL(value);
              if (url.hostname !== target || servicePort(url.hostname, Number(url.port))?.name !== "http")
                problems.push(`gateway: ${key}=${value}`);
            }
            if (key === "AUTH_JWKS_URL") {
              const url = new URL(value);
              if (url.hostname !== "auth" || servicePort("auth", Number(url.port))?.name !== "http" || url.pathname !== jwksPath)
                problems.push(`${process.name}: AUTH_JWKS_URL=${value}`);
            }
            if (key === "NATS_URL") {
              const url = new URL(value);
              if (!servicePort(url.hostname, Number(url.port))) problems.push(`${process.name}: NATS_URL=${value}`);
            }
          }
        }
        expect(problems, problems.join("\n")).to.deep.equal([]);
      });
    }
  });

  describe("generated ConfigMaps and the gateway's rate limit", () => {
    for (const name of RENDER_NAMES) {
      it(`${name}: the processes read docex-config and their own ConfigMap under names holding the hash of their contents, so that a changed setting rolls their pods`, () => {
        const problems: string[] = [];
        for (const process of processes) {
          const { deployment } = environmentOf(renders[name], process.name);
          const pod = deployment.spec.template.spec;
          for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
            const read = (container.envFrom ?? []).flatMap((source) => (source.configMapRef ? [source.configMapRef.name] : []));
            const expected = container.name === "migrate" ? ["docex-config"] : ["docex-config", `${process.name}-config`];
            const given = expected.map((configMap) => read.find((candidate) => candidate.startsWith(`${configMap}-`)));
            for (const [index, configMap] of expected.entries()) {
              const hashed = given[index];
              if (!hashed || !/^-[0-9a-z]{10}$/.test(hashed.slice(configMap.length)))
                problems.push(`${process.name} container ${container.name}: reads ${configMap} without a hash (${read.join(", ")})`);
              else if (!find(renders[name], "ConfigMap", hashed)) problems.push(`${process.name}: ConfigMap ${hashed} is not rendered`);
            }
          }
        }
        expect(problems, problems.join("\n")).to.deep.equal([]);
      });

      it(`${name}: every ConfigMap a pod reads or mounts, NATS's too, is generated with the hash of its contents in its name`, () => {
        const problems: string[] = [];
        for (const workload of renders[name].filter(isWorkload)) {
          const pod = workload.spec.template.spec;
          const names = [
            ...containersOf(pod).flatMap((container) => (container.envFrom ?? []).flatMap((source) => source.configMapRef?.name ?? [])),
            ...(pod.volumes ?? []).flatMap((volume) => volume.configMap?.name ?? []),
          ];
          for (const configMap of names)
            if (withoutNameHash(configMap) === configMap || !find(renders[name], "ConfigMap", configMap))
              problems.push(`${workload.kind} ${workload.metadata.name}: ConfigMap ${configMap}`);
        }
        expect(problems, problems.join("\n")).to.deep.equal([]);
      });

      it(`${name}: the gateway's rate limit per replica, times its replicas, gives each client at most the limit API.md names and at least half of it`, () => {
        const gateway = processes.find((process) => process.name === "gateway");
        const promised = Number(gateway?.defaults.GATEWAY_RATE_LIMIT_PER_MINUTE);
        const { deployment, effective } = environmentOf(renders[name], "gateway");
        const perReplica = Number(gateway?.schema.safeParse(effective).data?.GATEWAY_RATE_LIMIT_PER_MINUTE);
        const { min, max } = podRange(renders[name], deployment as Workload);
        expect(promised, "API.md's limit, the code's default").to.equal(6000);
        expect(perReplica * max, `${perReplica} a replica × ${max} replicas at most`).to.be.at.most(promised);
        expect(perReplica * min, `${perReplica} a replica × ${min} replicas at least`).to.be.at.least(promised / 2);
      });
    }
  });
});
