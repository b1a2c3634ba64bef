// The workloads of deploy/k8s against the code: every process and port has its manifest, probes
// ask what the processes serve, shutdown fits the grace period, pods are locked down and sized,
// replicas, budgets and autoscalers per overlay, and each service migrates in its init container.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { DOCEX_NODE_OPTIONS, SERVICE_PORTS } from "@docex/kit/config";
import { GrpcServer } from "@docex/kit/grpc";
import { createHttpApp, Readiness } from "@docex/kit/http";
import { createLogger } from "@docex/kit/logger";
import { Metrics } from "@docex/kit/metrics";
import { listen } from "@docex/kit/runtime";
import { testGrpcIdentity } from "@docex/testkit";
import * as grpc from "@grpc/grpc-js";
import { expect } from "chai";
import {
  environmentOf,
  type KubernetesFacts,
  k8sDir,
  loadDeployment,
  type ProcessFacts,
  RENDER_NAMES,
  RENDERS,
  type RenderName,
  root,
  SECRET_PLACEHOLDERS,
  serviceFolders,
} from "./support/kubernetes.js";
import {
  containersOf,
  type DisruptionBudget,
  disruptionsAllowed,
  find,
  findConfigMap,
  isWorkload,
  type K8sObject,
  type LabelSelector,
  ofKind,
  podRange,
  quantity,
  readManifests,
  type ServiceObject,
  selects,
  type TopologySpread,
  type Workload,
} from "./support/manifests.js";
import { callees, parseSource } from "./support/typescript-source.js";

describe("Kubernetes manifests: workloads", function () {
  this.timeout(60_000);

  let renders = {} as KubernetesFacts["renders"];
  let processes: ProcessFacts[] = [];
  const processNames = () => processes.map((process) => process.name);
  const serviceNames = () => processNames().filter((name) => name !== "gateway");

  before(async () => {
    ({ renders, processes } = await loadDeployment());
  });

  describe("processes and ports", () => {
    it("every folder of services/ and the gateway are in the kit's SERVICE_PORTS", () => {
      expect(Object.keys(SERVICE_PORTS).sort()).to.deep.equal(["gateway", ...serviceFolders()].sort());
    });

    it("each process has its own file in base with a Deployment, a Service and a ServiceAccount of its name", () => {
      for (const name of processNames()) {
        const file = path.join(k8sDir, "base", `${name}.yaml`);
        expect(existsSync(file), `deploy/k8s/base/${name}.yaml`).to.equal(true);
        const kinds = readManifests(file)
          .filter((object) => object.metadata.name === name)
          .map((object) => object.kind);
        expect(kinds, `deploy/k8s/base/${name}.yaml`).to.include.members(["Deployment", "Service", "ServiceAccount"]);
      }
      const deployments = ofKind(renders.base, "Deployment").map((object) => object.metadata.name);
      expect(deployments.sort(), "Deployments in base").to.deep.equal([...processNames()].sort());
    });

    for (const name of Object.keys(RENDERS) as RenderName[]) {
      it(`${name}: containers and Services expose the ports of SERVICE_PORTS as http and grpc, and the processes are told to listen there`, () => {
        for (const process of processes) {
          const { deployment, container, effective } = environmentOf(renders[name], process.name);
          const expectedPorts =
            process.name === "gateway"
              ? [["http", process.http]]
              : [
                  ["http", process.http],
                  ["grpc", process.grpc],
                ];
          // The intake listens for mail too; its Service intake-smtp (a load balancer) takes port 25 there.
          const smtp = process.name === "intake" ? [["smtp", 2526]] : [];
          expect(
            container.ports?.map((port) => [port.name, port.containerPort]),
            `${process.name} container ports`,
          ).to.deep.equal([...expectedPorts, ...smtp]);
          const service = find<ServiceObject>(renders[name], "Service", process.name);
          expect(service, `Service ${process.name}`).to.not.equal(undefined);
          expect(
            service?.spec.ports.map((port) => [port.name, port.port, port.targetPort]),
            `Service ${process.name} ports`,
          ).to.deep.equal(expectedPorts.map(([portName, number]) => [portName, number, portName]));
          expect(
            selects({ matchLabels: service?.spec.selector }, deployment.spec.template.metadata?.labels),
            `Service ${process.name} selects its pods`,
          ).to.equal(true);
          expect(selects(deployment.spec.selector, deployment.spec.template.metadata?.labels), `${process.name} selector`).to.equal(true);
          expect(deployment.spec.template.spec.serviceAccountName).to.equal(process.name);
          expect(find(renders[name], "ServiceAccount", process.name), `ServiceAccount ${process.name}`).to.not.equal(undefined);
          const parsed = process.schema.safeParse(effective).data ?? {};
          const portVariables: [string, number][] =
            process.name === "gateway"
              ? [["GATEWAY_PORT", process.http]]
              : [
                  ["PORT", process.http],
                  ["GRPC_PORT", process.grpc],
                ];
          for (const [variable, port] of portVariables) expect(parsed[variable], `${process.name} ${variable}`).to.equal(port);
          expect(parsed.HOST, `${process.name} HOST (the code's default 127.0.0.1 is unreachable from other pods)`).to.equal("0.0.0.0");
        }
      });
    }
  });

  describe("probes and shutdown", () => {
    for (const name of Object.keys(RENDERS) as RenderName[]) {
      it(`${name}: readiness asks /readyz and liveness /healthz on the http port; services start up on /readyz (gRPC listening)`, () => {
        for (const process of processes) {
          const { container } = environmentOf(renders[name], process.name);
          expect(container.readinessProbe?.httpGet, `${process.name} readiness`).to.deep.equal({ path: "/readyz", port: "http" });
          expect(container.livenessProbe?.httpGet, `${process.name} liveness`).to.deep.equal({ path: "/healthz", port: "http" });
          if (process.name === "gateway") {
            expect(container.startupProbe?.httpGet, "gateway startup").to.deep.equal({ path: "/healthz", port: "http" });
          } else {
            // Not a grpc probe: the kubelet has no client certificate for the mutual-TLS gRPC server. /readyz
            // includes the kit's "grpc" check, so the pod starts up once both servers listen.
            expect(container.startupProbe?.grpc, `${process.name} startup`).to.equal(undefined);
            expect(container.startupProbe?.httpGet, `${process.name} startup`).to.deep.equal({ path: "/readyz", port: "http" });
          }
        }
      });

      it(`${name}: terminationGracePeriodSeconds covers the preStop sleep, SHUTDOWN_TIMEOUT_MS and 5 s to close NATS and Postgres`, () => {
        for (const process of processes) {
          const { deployment, container, effective } = environmentOf(renders[name], process.name);
          const shutdownMs = Number(process.schema.safeParse(effective).data?.SHUTDOWN_TIMEOUT_MS);
          const sleep = container.lifecycle?.preStop?.sleep?.seconds ?? 0;
          expect(sleep, `${process.name} preStop sleep`).to.be.at.least(3);
          expect(deployment.spec.template.spec.terminationGracePeriodSeconds, `${process.name} grace period`).to.be.at.least(
            sleep + shutdownMs / 1000 + 5,
          );
        }
      });
    }

    it("the processes serve those probes: kit's HTTP app answers /healthz, /readyz (503 while draining) and /metrics; its gRPC server answers grpc.health.v1 Check", async () => {
      for (const name of serviceNames()) {
        const calls = callees(parseSource(path.join(root, "services", name, "src/service.ts")));
        // infra.httpApp and infra.grpcServer are the kit's createHttpApp and GrpcServer on the service's infrastructure.
        const buildsHttpApp = ["createHttpApp", "infra.httpApp"].some((callee) => calls.has(callee));
        const servesGrpc = ["new GrpcServer", "infra.grpcServer"].some((callee) => calls.has(callee));
        expect(buildsHttpApp, `services/${name}/src/service.ts builds kit's HTTP app`).to.equal(true);
        expect(servesGrpc, `services/${name}/src/service.ts serves gRPC with kit's GrpcServer`).to.equal(true);
      }
      expect(callees(parseSource(path.join(root, "gateway/src/app.ts"))), "the gateway mounts kit's health routes").to.include(
        "mountOperationalRoutes",
      );

      const logger = createLogger("kubernetes-test", "silent");
      const readiness = new Readiness();
      const app = createHttpApp({
        logger,
        metrics: new Metrics("kubernetes-test", { defaultMetrics: false }),
        readiness,
        routes: () => undefined,
      });
      const server = await listen(app, "127.0.0.1", 0);
      const grpcServer = new GrpcServer(logger, { identity: testGrpcIdentity("document") });
      try {
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        for (const probePath of ["/healthz", "/readyz", "/metrics"])
          expect((await fetch(`${base}${probePath}`)).status, probePath).to.equal(200);
        readiness.drain();
        expect((await fetch(`${base}/readyz`)).status, "/readyz while shutting down").to.equal(503);
        expect((await fetch(`${base}/healthz`)).status, "/healthz while shutting down").to.equal(200);

        const grpcPort = await grpcServer.listen("127.0.0.1", 0);
        expect(await grpcHealthCheck(grpcPort)).to.equal("SERVING");
      } finally {
        server.close();
        await grpcServer.shutdown(1_000);
      }
    });
  });

  describe("pods", () => {
    for (const name of Object.keys(RENDERS) as RenderName[]) {
      it(`${name}: every pod runs as non-root with seccomp RuntimeDefault, a read-only root filesystem, no capabilities, requests and limits`, () => {
        const problems: string[] = [];
        for (const workload of renders[name].filter(isWorkload)) {
          const pod = workload.spec.template.spec;
          const where = `${workload.kind} ${workload.metadata.name}`;
          if (pod.automountServiceAccountToken !== false) problems.push(`${where}: mounts a service account token`);
          for (const container of containersOf(pod)) {
            const at = `${where} container ${container.name}`;
            const security = container.securityContext ?? {};
            if ((security.runAsNonRoot ?? pod.securityContext?.runAsNonRoot) !== true) problems.push(`${at}: not runAsNonRoot`);
            if ((security.seccompProfile ?? pod.securityContext?.seccompProfile)?.type !== "RuntimeDefault")
              problems.push(`${at}: seccomp`);
            if (security.readOnlyRootFilesystem !== true) problems.push(`${at}: writable root filesystem`);
            if (security.allowPrivilegeEscalation !== false) problems.push(`${at}: allowPrivilegeEscalation`);
            if (!security.capabilities?.drop?.includes("ALL") || (security.capabilities.add ?? []).length > 0)
              problems.push(`${at}: capabilities`);
            for (const kind of ["requests", "limits"] as const) {
              for (const resource of ["cpu", "memory"]) {
                if (!container.resources?.[kind]?.[resource]) problems.push(`${at}: no ${kind}.${resource}`);
              }
            }
            for (const resource of ["cpu", "memory"]) {
              const request = quantity(container.resources?.requests?.[resource]);
              const limit = quantity(container.resources?.limits?.[resource]);
              if (request > limit) problems.push(`${at}: ${resource} request above its limit`);
            }
          }
        }
        for (const process of processes) {
          const { deployment, container } = environmentOf(renders[name], process.name);
          const tmp = container.volumeMounts?.find((mount) => mount.mountPath === "/tmp");
          const volume = deployment.spec.template.spec.volumes?.find((candidate) => candidate.name === tmp?.name);
          if (!volume?.emptyDir) problems.push(`${process.name}: /tmp is not an emptyDir`);
        }
        expect(problems, problems.join("\n")).to.deep.equal([]);
      });
    }

    for (const name of ["base", "production"] as const) {
      it(`${name}: gateway, document, webhook and extraction have a PodDisruptionBudget and a HorizontalPodAutoscaler, which alone sets their replicas`, () => {
        for (const process of ["gateway", "document", "webhook", "extraction"]) {
          const deployment = find<Workload>(renders[name], "Deployment", process);
          const labels = deployment?.spec.template.metadata?.labels;
          const budgets = ofKind<K8sObject & { spec: { selector: LabelSelector } }>(renders[name], "PodDisruptionBudget");
          expect(budgets.filter((budget) => selects(budget.spec.selector, labels)).length, `${process} PDB`).to.equal(1);
          const autoscalers = ofKind<K8sObject & { spec: { scaleTargetRef: { kind: string; name: string }; minReplicas: number } }>(
            renders[name],
            "HorizontalPodAutoscaler",
          ).filter((hpa) => hpa.spec.scaleTargetRef.kind === "Deployment" && hpa.spec.scaleTargetRef.name === process);
          expect(autoscalers.length, `${process} HPA`).to.equal(1);
          expect(autoscalers[0]?.spec.minReplicas, `${process} HPA minReplicas`).to.be.at.least(2);
          expect(deployment?.spec.replicas, `${process} Deployment replicas (the HPA owns them)`).to.equal(undefined);
        }
      });
    }

    it("dev: one replica each, no autoscalers, one NATS server without a cluster, Postgres in the cluster", () => {
      for (const deployment of ofKind<Workload>(renders.dev, "Deployment"))
        expect(deployment.spec.replicas, deployment.metadata.name).to.equal(1);
      expect(ofKind(renders.dev, "HorizontalPodAutoscaler")).to.deep.equal([]);
      expect(find<Workload>(renders.dev, "StatefulSet", "nats")?.spec.replicas).to.equal(1);
      expect(findConfigMap(renders.dev, "nats-config")?.data?.["nats.conf"]).to.not.match(/cluster\s*\{/);
      expect(find<Workload>(renders.dev, "StatefulSet", "postgres")?.spec.replicas).to.equal(1);
      expect(ofKind(renders.dev, "Job")).to.deep.equal([]);
    });

    it("production: several replicas spread over nodes, registry images, a 3-node NATS cluster whose routes name its servers, no Postgres in the cluster", () => {
      for (const deployment of ofKind<Workload>(renders.production, "Deployment")) {
        const name = deployment.metadata.name;
        const pod = deployment.spec.template.spec;
        if (!["gateway", "document", "webhook", "extraction"].includes(name))
          expect(deployment.spec.replicas, `${name} replicas`).to.be.at.least(2);
        const terms = pod.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
        expect(
          terms.some(
            ({ podAffinityTerm }) =>
              podAffinityTerm.topologyKey === "kubernetes.io/hostname" &&
              selects(podAffinityTerm.labelSelector, deployment.spec.template.metadata?.labels),
          ),
          `${name} anti-affinity`,
        ).to.equal(true);
        for (const container of containersOf(pod)) expect(container.image, `${name} image`).to.not.match(/^docex\/|:local$/);
      }
      for (const hpa of ofKind<K8sObject & { spec: { minReplicas: number } }>(renders.production, "HorizontalPodAutoscaler")) {
        expect(hpa.spec.minReplicas, `${hpa.metadata.name} minReplicas`).to.be.at.least(3);
      }
      const nats = find<Workload>(renders.production, "StatefulSet", "nats");
      expect(nats?.spec.replicas).to.equal(3);
      const routes = [
        ...(findConfigMap(renders.production, "nats-config")?.data?.["cluster.conf"] ?? "").matchAll(/nats:\/\/([^:\s]+):6222/g),
      ].map(([, host]) => host);
      expect(routes).to.deep.equal([0, 1, 2].map((index) => `nats-${index}.${nats?.spec.serviceName}`));
      expect(find(renders.production, "Service", nats?.spec.serviceName ?? "")).to.not.equal(undefined);
      expect(nats?.spec.template.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0]?.topologyKey).to.equal(
        "kubernetes.io/hostname",
      );
      expect(renders.production.filter((object) => object.metadata.labels?.["app.kubernetes.io/component"] === "postgres")).to.deep.equal(
        [],
      );
    });

    for (const name of ["dev", "production"] as const) {
      it(`${name}: the services create the JetStream streams with as many replicas as NATS has servers, and no job changes them`, () => {
        const servers = find<Workload>(renders[name], "StatefulSet", "nats")?.spec.replicas;
        expect(servers, "NATS servers").to.be.a("number");
        for (const process of processes.filter((candidate) => candidate.settings.has("NATS_STREAM_REPLICAS"))) {
          const { effective } = environmentOf(renders[name], process.name);
          const parsed = process.schema.safeParse(effective).data ?? {};
          expect(parsed.NATS_STREAM_REPLICAS, `${process.name} NATS_STREAM_REPLICAS`).to.equal(servers);
        }
        expect(ofKind(renders[name], "Job"), "Jobs").to.deep.equal([]);
      });
    }
  });

  describe("disruptions and placement", () => {
    for (const name of RENDER_NAMES) {
      it(`${name}: every Deployment and StatefulSet has one PodDisruptionBudget, which lets a drain evict a pod at the fewest replicas and keeps one serving where there are two`, () => {
        const problems: string[] = [];
        const budgets = ofKind<DisruptionBudget>(renders[name], "PodDisruptionBudget");
        for (const workload of renders[name].filter((object): object is Workload => ["Deployment", "StatefulSet"].includes(object.kind))) {
          const where = `${workload.kind} ${workload.metadata.name}`;
          const labels = workload.spec.template.metadata?.labels;
          const own = budgets.filter((budget) => selects(budget.spec.selector, labels));
          if (own.length !== 1) {
            problems.push(`${where}: ${own.length} PodDisruptionBudgets`);
            continue;
          }
          const [budget] = own as [DisruptionBudget];
          const { min } = podRange(renders[name], workload);
          const allowed = disruptionsAllowed(budget, min);
          if (allowed < 1) problems.push(`${where}: at ${min} pods its budget blocks every drain`);
          if (min >= 2 && allowed >= min) problems.push(`${where}: at ${min} pods its budget lets a drain evict them all`);
          // A pod that is not ready serves nothing: waiting for it to become ready would only stall the drain.
          if (workload.kind === "Deployment" && budget.spec.unhealthyPodEvictionPolicy !== "AlwaysAllow")
            problems.push(`${where}: its budget keeps pods that are not ready from being evicted`);
        }
        for (const budget of budgets) {
          const selected = renders[name].filter(
            (object) => isWorkload(object) && selects(budget.spec.selector, object.spec.template.metadata?.labels),
          );
          if (selected.length === 0) problems.push(`PodDisruptionBudget ${budget.metadata.name} selects no pods`);
        }
        expect(problems, problems.join("\n")).to.deep.equal([]);
      });
    }

    it("production: every Deployment prefers to spread its pods over zones; the NATS servers must, one per zone and one per node", () => {
      const problems: string[] = [];
      const spreadsOverZones = (workload: Workload, when: TopologySpread["whenUnsatisfiable"]) =>
        (workload.spec.template.spec.topologySpreadConstraints ?? []).some(
          (constraint) =>
            constraint.topologyKey === "topology.kubernetes.io/zone" &&
            constraint.maxSkew === 1 &&
            constraint.whenUnsatisfiable === when &&
            selects(constraint.labelSelector, workload.spec.template.metadata?.labels),
        );
      for (const deployment of ofKind<Workload>(renders.production, "Deployment"))
        if (!spreadsOverZones(deployment, "ScheduleAnyway")) problems.push(`${deployment.metadata.name}: no zone spread`);
      const nats = find<Workload>(renders.production, "StatefulSet", "nats");
      if (!nats || !spreadsOverZones(nats, "DoNotSchedule")) problems.push("nats: not one server per zone");
      const perNode = nats?.spec.template.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
      if (
        !perNode.some(
          (term) => term.topologyKey === "kubernetes.io/hostname" && selects(term.labelSelector, nats?.spec.template.metadata?.labels),
        )
      )
        problems.push("nats: not one server per node");
      expect(problems, problems.join("\n")).to.deep.equal([]);
    });
  });

  describe("images", () => {
    const dockerfile = () => readFileSync(path.join(root, "deploy/Dockerfile"), "utf8");

    it("deploy/Dockerfile's runtime runs every process with the kit's DOCEX_NODE_OPTIONS, and no manifest replaces them", () => {
      const runtime = dockerfile()
        .split(/^FROM /m)
        .find((stage) => stage.startsWith("${NODE_IMAGE} AS runtime\n"));
      expect(runtime?.match(/NODE_OPTIONS=(\S+)/)?.[1]).to.equal(DOCEX_NODE_OPTIONS);
      const replaced = Object.entries(renders).flatMap(([name, objects]) =>
        objects.filter(isWorkload).flatMap((workload) =>
          containersOf(workload.spec.template.spec)
            .filter((container) => container.env?.some((variable) => variable.name === "NODE_OPTIONS"))
            .map((container) => `${name}: ${workload.metadata.name}/${container.name}`),
        ),
      );
      expect(replaced).to.deep.equal([]);
    });

    it("deploy/Dockerfile has no `# syntax=` line: BuildKit's own frontend reads it, none is pulled from a registry", () => {
      const directives = dockerfile()
        .split("\n")
        .filter((line) => /^#\s*syntax\s*=/i.test(line));
      expect(directives).to.deep.equal([]);
    });

    it("an image holds only its process's production workspaces: its own and those its dependencies reach, never the testkit, the private CA or another process", () => {
      const text = dockerfile();
      expect(text, "the build stage has the script").to.include("COPY deploy/runtime-workspaces.mjs ./deploy/");
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's own variable
      const loop = 'for dir in $(node deploy/runtime-workspaces.mjs "@docex/${SERVICE}"); do';
      expect(text, "the runtime copies what it lists").to.include(loop);
      const manifest = (dir: string) =>
        JSON.parse(readFileSync(path.join(root, dir, "package.json"), "utf8")) as { name: string; dependencies?: Record<string, string> };
      const processDirs = processNames().map((name) => (name === "gateway" ? "gateway" : `services/${name}`));
      const problems: string[] = [];
      for (const name of processNames()) {
        const listed = spawnSync(process.execPath, [path.join(root, "deploy/runtime-workspaces.mjs"), `@docex/${name}`], {
          cwd: root,
          encoding: "utf8",
        });
        const dirs = listed.stdout.trim().split("\n");
        const own = name === "gateway" ? "gateway" : `services/${name}`;
        if (listed.status !== 0 || dirs[0] !== own) problems.push(`${name}: ${listed.stderr || dirs.join(", ")}`);
        for (const dir of dirs.slice(1))
          if (processDirs.includes(dir) || dir === "packages/testkit" || dir === "packages/private-ca")
            problems.push(`${name}: its image would hold ${dir}`);
        const names = new Set(dirs.map((dir) => manifest(dir).name));
        for (const dir of dirs)
          for (const dependency of Object.keys(manifest(dir).dependencies ?? {}))
            if (dependency.startsWith("@docex/") && !names.has(dependency))
              problems.push(`${name}: ${dir} needs ${dependency}, which is not copied`);
      }
      expect(problems, problems.join("\n")).to.deep.equal([]);
    });
  });

  describe("register uploads", () => {
    const HEAP_FLAG = /^--max-old-space-size=(\d+)$/;
    /** Uploads of the largest size a register replica must hold at once. */
    const UPLOADS_AT_ONCE = 2;
    const fits = new Map<number, { rss: number }>();
    /** Reads the largest uploads in a child process with this heap (support/register-upload-fit.ts); its peak RSS. */
    const fitFor = async (heapMiB: number) => {
      const known = fits.get(heapMiB);
      if (known) return known;
      const { ROUTES } = await import("@docex/gateway");
      const upload = ROUTES.find((route) => route.method === "POST" && route.path === "/registers");
      const script = path.join(root, "scripts/test/support/register-upload-fit.ts");
      const child = spawnSync(
        process.execPath,
        [`--max-old-space-size=${heapMiB}`, "--import", "tsx", script, String(upload?.bodyLimitBytes), String(UPLOADS_AT_ONCE)],
        { cwd: path.join(root, "scripts"), encoding: "utf8", maxBuffer: 16 * 1024 * 1024 },
      );
      if (child.status !== 0)
        throw new Error(
          `${UPLOADS_AT_ONCE} uploads of ${upload?.bodyLimitBytes} bytes do not fit a heap of ${heapMiB} MiB:\n${child.stderr.slice(-2000)}`,
        );
      const result = JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "{}") as { rss: number };
      fits.set(heapMiB, result);
      return result;
    };

    for (const name of RENDER_NAMES) {
      it(`${name}: register runs its image's command with a heap that holds ${UPLOADS_AT_ONCE} of its largest uploads at once, in a memory limit a quarter above what reading them takes`, async function () {
        this.timeout(120_000);
        const { container } = environmentOf(renders[name], "register");
        const command = container.command ?? [];
        const heapFlag = command.find((arg) => HEAP_FLAG.test(arg));
        expect(heapFlag, "--max-old-space-size").to.be.a("string");
        expect(
          command.filter((arg) => arg !== heapFlag),
          "the image's command besides",
        ).to.deep.equal(imageCommand("register"));
        expect(command.indexOf(heapFlag ?? ""), "a flag of node").to.equal(1);
        const heapMiB = Number(heapFlag?.match(HEAP_FLAG)?.[1]);
        const { rss } = await fitFor(heapMiB);
        const limit = quantity(container.resources?.limits?.memory);
        expect(limit, `memory limit against ${Math.round(rss / 2 ** 20)} MiB read at once`).to.be.at.least(rss * 1.25);
        expect(limit, "memory limit against the heap").to.be.above(heapMiB * 2 ** 20);
      });
    }
  });

  describe("migrations", () => {
    const withDatabase = () => processes.filter((process) => process.settings.has("DATABASE_URL"));

    it("every service has a database; the gateway has none", () => {
      expect(withDatabase().map((process) => process.name)).to.deep.equal(serviceNames());
    });

    for (const name of Object.keys(RENDERS) as RenderName[]) {
      it(`${name}: every service with a database migrates it in an init container of its own image (MIGRATE_ONLY=true, its DATABASE_URL), and the service does not migrate again`, async () => {
        const { serviceConfigSchema } = await import("@docex/kit/config");
        const problems: string[] = [];
        for (const process of processes) {
          const { deployment, container, effective, secretRefs } = environmentOf(renders[name], process.name);
          const initContainers = deployment.spec.template.spec.initContainers ?? [];
          if (!process.settings.has("DATABASE_URL")) {
            if (initContainers.length > 0) problems.push(`${process.name}: has no database but init containers`);
            continue;
          }
          const parsed = process.schema.safeParse(effective).data ?? {};
          if (parsed.MIGRATE_ON_START !== false) problems.push(`${process.name}: MIGRATE_ON_START is not false`);
          if (parsed.MIGRATE_ONLY !== false) problems.push(`${process.name}: MIGRATE_ONLY is not false`);
          const migrate = initContainers.find((candidate) => candidate.name === "migrate");
          if (!migrate || initContainers.length !== 1) {
            problems.push(`${process.name}: no single init container named migrate`);
            continue;
          }
          const at = `${process.name} init container migrate`;
          if (migrate.image !== container.image) problems.push(`${at}: image ${migrate.image}, not ${container.image}`);
          const command = imageCommand(process.name);
          if (!command) problems.push(`${process.name}: no CMD in deploy/Dockerfile's svc-${process.name} stage`);
          else if (JSON.stringify(migrate.command) !== JSON.stringify(command))
            problems.push(`${at}: command ${JSON.stringify(migrate.command)}, not the image's ${JSON.stringify(command)}`);
          if (JSON.stringify(migrate.securityContext) !== JSON.stringify(container.securityContext))
            problems.push(`${at}: securityContext differs from the service's`);
          if (name === "base" && JSON.stringify(migrate.resources) !== JSON.stringify(container.resources))
            problems.push(`${at}: resources differ from the service's`);

          const env: Record<string, string> = {};
          for (const source of migrate.envFrom ?? []) {
            const configMap = source.configMapRef && find(renders[name], "ConfigMap", source.configMapRef.name);
            if (!configMap) problems.push(`${at}: envFrom names no rendered ConfigMap`);
            Object.assign(env, configMap?.data ?? {});
          }
          for (const variable of migrate.env ?? []) {
            const ref = variable.valueFrom?.secretKeyRef;
            if (variable.value !== undefined) env[variable.name] = variable.value;
            else if (ref) {
              const own = secretRefs.get(variable.name);
              if (ref.name !== own?.name || ref.key !== own.key || ref.optional)
                problems.push(`${at}: ${variable.name} from ${ref.name}/${ref.key}, not the service's ${own?.name}/${own?.key}`);
              env[variable.name] = SECRET_PLACEHOLDERS[ref.key] ?? "";
            } else problems.push(`${at}: ${variable.name} comes from neither a value nor a Secret`);
          }
          if (!migrate.env?.some((variable) => variable.name === "DATABASE_URL" && variable.valueFrom?.secretKeyRef))
            problems.push(`${at}: DATABASE_URL is not from the service's Secret`);
          // What migrateAndExitIfRequested reads: the settings every service shares, nothing of its own.
          const result = serviceConfigSchema(process.name as Parameters<typeof serviceConfigSchema>[0]).safeParse(env);
          if (!result.success)
            problems.push(`${at}: ${result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
          else if (result.data.MIGRATE_ONLY !== true) problems.push(`${at}: MIGRATE_ONLY is not true`);
          else if (result.data.DATABASE_URL !== effective.DATABASE_URL) problems.push(`${at}: another DATABASE_URL than the service's`);
        }
        expect(problems, problems.join("\n")).to.deep.equal([]);
      });
    }
  });
});

/** grpc.health.v1.Health/Check with an empty service name, over mutual TLS as another service (the kubelet cannot). */
async function grpcHealthCheck(port: number): Promise<string> {
  const identity = testGrpcIdentity("gateway");
  const Health = grpc.makeGenericClientConstructor(
    {
      Check: {
        path: "/grpc.health.v1.Health/Check",
        requestStream: false,
        responseStream: false,
        requestSerialize: () => Buffer.alloc(0),
        requestDeserialize: (bytes: Buffer) => bytes,
        responseSerialize: (bytes: Buffer) => bytes,
        responseDeserialize: (bytes: Buffer) => bytes,
      },
    },
    "Health",
  );
  const client = new Health(`127.0.0.1:${port}`, identity.channelCredentials(), identity.channelOptions("document"));
  try {
    const answer = await new Promise<Buffer>((resolve, reject) => {
      (
        client as unknown as {
          Check: (request: Buffer, options: grpc.CallOptions, callback: (error: Error | null, response: Buffer) => void) => void;
        }
      ).Check(Buffer.alloc(0), { deadline: Date.now() + 5_000 }, (error, response) => (error ? reject(error) : resolve(response)));
    });
    // HealthCheckResponse { ServingStatus status = 1; }: one varint field, absent when UNKNOWN.
    const status = answer.length >= 2 && answer[0] === 0x08 ? (answer[1] ?? 0) : 0;
    return ["UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"][status] ?? String(status);
  } finally {
    client.close();
  }
}

/** The entry point of each process's image, from its `svc-<name>` stage of deploy/Dockerfile. */
function imageCommand(name: string): string[] | undefined {
  const dockerfile = readFileSync(path.join(root, "deploy/Dockerfile"), "utf8");
  const stage = dockerfile.split(/^FROM /m).find((part) => part.startsWith(`runtime AS svc-${name}\n`));
  const command = stage?.match(/^CMD (\[.*\])$/m)?.[1];
  return command ? (JSON.parse(command) as string[]) : undefined;
}
