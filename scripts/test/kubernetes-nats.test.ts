// Keeps NATS in deploy/k8s and deploy/monitoring true to what docex needs of it (#20): streams that fit the
// servers' storage, a payload limit set on purpose, a startup that waits for the full /healthz, lame-duck
// shutdown, a user of its own for every service, TLS in production, and metrics with alerts. The overlays are rendered
// as in kubernetes.test.ts.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { NATS_SERVICE_USERS } from "@docex/kit/bus";
import { expect } from "chai";
import { parse } from "yaml";
import { deploymentNatsUsersConfig, natsPasswordVariable } from "../src/nats-users.js";
import { renderKustomization } from "./support/kustomize.js";
import {
  type Container,
  find,
  findConfigMap,
  type K8sObject,
  type LabelSelector,
  ofKind,
  selects,
  type Workload,
} from "./support/manifests.js";
import { promqlProblems } from "./support/promql.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const RENDERS = { dev: "deploy/k8s/overlays/dev", production: "deploy/k8s/overlays/production" } as const;
type RenderName = keyof typeof RENDERS;

/**
 * The metrics of prometheus-nats-exporter (-varz -healthz -jsz=all) that alerts may use, Prometheus' own `up`, and
 * blackbox_exporter's probe of the served certificate (production's tls-probe).
 */
const EXPORTER_METRICS = new Set([
  "up",
  "probe_success",
  // kube-state-metrics: a server that is down reports nothing itself (DocexNatsServerDown).
  "kube_statefulset_replicas",
  "kube_statefulset_status_replicas_ready",
  "probe_ssl_earliest_cert_expiry",
  "gnatsd_healthz_status",
  "jetstream_server_total_streams",
  "jetstream_server_total_consumers",
  "jetstream_server_total_messages",
  "jetstream_server_total_message_bytes",
  "jetstream_server_max_memory",
  "jetstream_server_max_storage",
  "jetstream_stream_total_messages",
  "jetstream_stream_total_bytes",
  "jetstream_stream_consumer_count",
  "jetstream_consumer_num_pending",
  "jetstream_consumer_num_ack_pending",
  "jetstream_consumer_num_redelivered",
]);

/** A nats.conf size ("8GB": nats-server reads GB, MB, KB as powers of 1024) or a Kubernetes quantity ("10Gi"), in bytes. */
function bytes(size: string | undefined): number {
  const match = size?.trim().match(/^(\d+)\s*(KB|MB|GB|TB|Ki|Mi|Gi|Ti)?$/i);
  if (!match) return Number.NaN;
  const power = { k: 1, m: 2, g: 3, t: 4 }[(match[2] ?? " ")[0]?.toLowerCase() as "k"] ?? 0;
  return Number(match[1]) * 1024 ** power;
}

/** `key: value` of nats.conf, at any depth (the keys used here are unique in it). */
function confValue(conf: string, key: string): string | undefined {
  return conf.match(new RegExp(`^\\s*${key}\\s*[:=]\\s*(.+?)\\s*$`, "m"))?.[1];
}

/**
 * The options nats.conf may set, by their path of blocks: each is in the configuration reference of NATS 2.12, the
 * line production runs (deploy/README.md, "Upgrading NATS"), with the same meaning it had in 2.10 and 2.11. A new
 * option goes here after checking it there.
 */
const NATS_2_12_OPTIONS = new Set([
  "server_name",
  "listen",
  "http",
  "include",
  // docex-users.conf: one user per service, each with its permissions (checked against SERVICE_EVENTS above).
  "authorization",
  "authorization.users",
  "max_payload",
  "pid_file",
  "lame_duck_grace_period",
  "lame_duck_duration",
  "tls",
  "tls.cert_file",
  "tls.key_file",
  "tls.ca_file",
  "tls.verify",
  "tls.timeout",
  "jetstream",
  "jetstream.store_dir",
  "jetstream.max_memory_store",
  "jetstream.max_file_store",
  "cluster",
  "cluster.name",
  "cluster.listen",
  "cluster.routes",
  "cluster.tls",
  "cluster.tls.cert_file",
  "cluster.tls.key_file",
  "cluster.tls.ca_file",
  "cluster.tls.verify",
  "cluster.tls.verify_cert_and_check_known_urls",
  "cluster.tls.timeout",
  "cluster.authorization",
  "cluster.authorization.user",
  "cluster.authorization.password",
  "cluster.authorization.timeout",
]);

/** The option paths a nats.conf sets (`jetstream.store_dir`), following its `include`s inside `files`; arrays are values. */
function confOptions(conf: string, files: Record<string, string> = {}, prefix: string[] = []): string[] {
  const options: string[] = [];
  const stack = [...prefix];
  let arrayDepth = 0;
  for (const raw of conf.split("\n")) {
    const line = raw.replace(/(^|\s)(#|\/\/).*$/, "").trim();
    if (line === "") continue;
    if (arrayDepth > 0) {
      arrayDepth += (line.match(/\[/g) ?? []).length - (line.match(/\]/g) ?? []).length;
      continue;
    }
    if (line === "}") {
      stack.pop();
      continue;
    }
    const [, key = "", rest = ""] = line.match(/^([A-Za-z_][\w-]*)\s*[:=]?\s*(.*)$/) ?? [];
    if (!key) throw new Error(`nats.conf: cannot read the line ${raw}`);
    const at = [...stack, key].join(".");
    options.push(key === "include" ? "include" : at);
    if (key === "include") {
      const included = files[rest.replace(/^\.\//, "").replace(/;$/, "")];
      if (included === undefined) throw new Error(`nats.conf includes ${rest}, which is not beside it`);
      options.push(...confOptions(included, files, stack).filter((option) => option !== "include"));
    } else if (rest.startsWith("{") && !rest.endsWith("}")) stack.push(key);
    else if (rest.startsWith("[")) arrayDepth = (rest.match(/\[/g) ?? []).length - (rest.match(/\]/g) ?? []).length;
  }
  return options;
}

const seconds = (duration: string | undefined) => Number(duration?.match(/^(\d+)s$/)?.[1] ?? Number.NaN);

describe("NATS on Kubernetes (deploy/k8s/infra/nats, its overlays and deploy/monitoring/nats.yaml)", () => {
  const renders = {} as Record<RenderName, K8sObject[]>;
  let monitoring: K8sObject[] = [];

  before(() => {
    for (const [name, dir] of Object.entries(RENDERS)) renders[name as RenderName] = renderKustomization(path.join(root, dir));
    monitoring = renderKustomization(path.join(root, "deploy/monitoring"));
  });

  const natsOf = (name: RenderName) => {
    const statefulSet = find<Workload>(renders[name], "StatefulSet", "nats");
    const server = statefulSet?.spec.template.spec.containers.find((container) => container.name === "nats");
    const files = findConfigMap(renders[name], "nats-config")?.data ?? {};
    const raw = files["nats.conf"];
    const users = files["docex-users.conf"];
    if (!statefulSet || !server || !raw) throw new Error(`${name}: no NATS StatefulSet with a container nats and nats.conf`);
    // nats.conf with the files it includes (but the generated users) written in, as nats-server reads it.
    const expand = (text: string): string =>
      text.replace(/^(\s*)include \.\/(\S+?);?\s*$/gm, (line, _indent: string, file: string) => {
        if (file === "docex-users.conf") return line;
        const included = files[file];
        if (included === undefined) throw new Error(`${name}: nats.conf includes ${file}, which is not in nats-config`);
        return expand(included);
      });
    return { statefulSet, server, conf: expand(raw), raw, users, files };
  };
  const docexConfig = (name: RenderName) => findConfigMap(renders[name], "docex-config")?.data ?? {};
  const services = (name: RenderName) =>
    ofKind<Workload>(renders[name], "Deployment").filter(
      (deployment) => deployment.spec.template.metadata?.labels?.["app.kubernetes.io/component"] === "service",
    );
  const mainContainer = (deployment: Workload): Container => {
    const container = deployment.spec.template.spec.containers.find((candidate) => candidate.name === deployment.metadata.name);
    if (!container) throw new Error(`${deployment.metadata.name} has no container of its name`);
    return container;
  };

  for (const name of Object.keys(RENDERS) as RenderName[]) {
    it(`${name}: max_payload is set, and max_file_store lies within the volume and holds DOCEX and DOCEX_DLQ at their size limits`, () => {
      const { statefulSet, conf } = natsOf(name);
      expect(bytes(confValue(conf, "max_payload")), "max_payload").to.be.within(64 * 1024, 8 * 1024 * 1024);
      const fileStore = bytes(confValue(conf, "max_file_store"));
      const volume = bytes(
        statefulSet.spec.volumeClaimTemplates?.find((claim) => claim.metadata.name === "data")?.spec.resources.requests.storage,
      );
      expect(fileStore, "max_file_store (its indexes and snapshots need room beside it)").to.be.at.most(0.9 * volume);
      const config = docexConfig(name);
      const streams = Number(config.NATS_STREAM_MAX_BYTES) + Number(config.NATS_DLQ_MAX_BYTES);
      expect(streams, "NATS_STREAM_MAX_BYTES + NATS_DLQ_MAX_BYTES").to.be.at.most(fileStore);
      expect(Number(config.NATS_STREAM_MAX_AGE_HOURS), "NATS_STREAM_MAX_AGE_HOURS").to.be.greaterThan(0);
      expect(Number(config.NATS_DLQ_MAX_AGE_HOURS), "NATS_DLQ_MAX_AGE_HOURS").to.be.at.least(Number(config.NATS_STREAM_MAX_AGE_HOURS));
    });

    it(`${name}: a server starts up on the full /healthz, and on preStop goes lame duck (through the pid file nats.conf writes) within its grace period`, () => {
      const { statefulSet, server, conf } = natsOf(name);
      expect(server.startupProbe?.httpGet?.path, "startup probe").to.equal("/healthz");
      const pidFile = confValue(conf, "pid_file") ?? "";
      expect(server.lifecycle?.preStop?.exec?.command.join(" "), "preStop").to.match(
        new RegExp(`^nats-server (--signal|-sl)[ =]ldm=${pidFile}$`),
      );
      const pidMount = server.volumeMounts?.find((mount) => mount.mountPath === path.dirname(pidFile));
      const volume = statefulSet.spec.template.spec.volumes?.find((candidate) => candidate.name === pidMount?.name);
      expect(volume?.emptyDir, "a writable directory for the pid file (the root filesystem is read-only)").to.not.equal(undefined);
      const lameDuck = seconds(confValue(conf, "lame_duck_grace_period")) + seconds(confValue(conf, "lame_duck_duration"));
      expect(statefulSet.spec.template.spec.terminationGracePeriodSeconds, "grace period").to.be.at.least(lameDuck + 10);
    });

    it(`${name}: every service connects as its own NATS user, with the password of its own Secret, and the servers read every user's password from nats-secrets`, () => {
      const { server, raw, conf, users } = natsOf(name);
      expect(raw).to.match(/^\s*include \.\/docex-users\.conf\s*$/m);
      expect(conf).not.to.match(/token/);
      expect(users, "docex-users.conf as SERVICE_EVENTS generates it").to.equal(deploymentNatsUsersConfig());
      for (const user of [...NATS_SERVICE_USERS, "operator" as const]) {
        const variable = natsPasswordVariable(user);
        expect(server.env?.find((candidate) => candidate.name === variable)?.valueFrom?.secretKeyRef, variable).to.deep.equal({
          name: "nats-secrets",
          key: variable,
        });
      }
      const deployments = services(name);
      expect(deployments.map((deployment) => deployment.metadata.name).sort()).to.deep.equal([...NATS_SERVICE_USERS].sort());
      for (const deployment of deployments) {
        const env = mainContainer(deployment).env ?? [];
        expect(env.find((variable) => variable.name === "NATS_USER")?.value, deployment.metadata.name).to.equal(deployment.metadata.name);
        expect(env.find((variable) => variable.name === "NATS_PASSWORD")?.valueFrom?.secretKeyRef, deployment.metadata.name).to.deep.equal({
          name: `${deployment.metadata.name}-secrets`,
          key: "NATS_PASSWORD",
        });
        expect(env.some((variable) => variable.name === "NATS_TOKEN")).to.equal(false);
      }
    });

    it(`${name}: an exporter beside each server serves its metrics, which the PodMonitor scrapes and the NetworkPolicy lets Prometheus reach`, () => {
      const { statefulSet } = natsOf(name);
      const exporter = statefulSet.spec.template.spec.containers.find((container) => container.name === "metrics");
      const monitorPort = natsOf(name).server.ports?.find((port) => port.name === "monitor")?.containerPort;
      expect(exporter?.args, "exporter arguments").to.include.members(["-healthz", "-jsz=all", `http://localhost:${monitorPort}`]);
      const metricsPort = exporter?.ports?.find((port) => port.name === "metrics")?.containerPort;
      expect(metricsPort).to.be.a("number");
      const podMonitor = find<K8sObject & { spec: { selector: LabelSelector; podMetricsEndpoints: { port: string }[] } }>(
        monitoring,
        "PodMonitor",
        "nats",
      );
      expect(selects(podMonitor?.spec.selector, statefulSet.spec.template.metadata?.labels), "PodMonitor selects the servers").to.equal(
        true,
      );
      expect(podMonitor?.spec.podMetricsEndpoints.map((endpoint) => endpoint.port)).to.deep.equal(["metrics", "tls-probe"]);
      const tlsProbePort = statefulSet.spec.template.spec.containers
        .find((container) => container.name === "tls-probe")
        ?.ports?.find((port) => port.name === "tls-probe")?.containerPort;
      expect(tlsProbePort !== undefined, "the TLS probe where NATS serves TLS").to.equal(name === "production");
      const policy = find<
        K8sObject & {
          spec: {
            podSelector: LabelSelector;
            ingress: { from: { namespaceSelector?: LabelSelector }[]; ports: { port: number }[] }[];
          };
        }
      >(renders[name], "NetworkPolicy", "nats");
      expect(selects(policy?.spec.podSelector, statefulSet.spec.template.metadata?.labels)).to.equal(true);
      const fromMonitoring = policy?.spec.ingress.find((rule) =>
        rule.from.some((peer) => peer.namespaceSelector?.matchLabels?.["kubernetes.io/metadata.name"] === "monitoring"),
      );
      expect(
        fromMonitoring?.ports.map((port) => port.port),
        "Prometheus may reach the exporter and the TLS probe, and only them",
      ).to.deep.equal(tlsProbePort === undefined ? [metricsPort] : [metricsPort, tlsProbePort]);
    });
  }

  it("every NATS server runs the 2.12 line: production at a fixed patch with its digest, the base, the reloader and compose on the same minor", () => {
    const minorOf = (image: string | undefined) => image?.match(/^nats:(\d+\.\d+)[.-]/)?.[1];
    const production = natsOf("production");
    expect(production.server.image).to.match(/^nats:2\.12\.\d+-alpine@sha256:[0-9a-f]{64}$/);
    const images = [
      ...(["dev", "production"] as const).flatMap((name) =>
        natsOf(name)
          .statefulSet.spec.template.spec.containers.filter((container) => container.name !== "metrics" && container.name !== "tls-probe")
          .map((container) => ({ where: `${name} ${container.name}`, image: container.image })),
      ),
      {
        where: "docker-compose.yml",
        image: (parse(readFileSync(path.join(root, "docker-compose.yml"), "utf8")) as { services: Record<string, { image?: string }> })
          .services.nats?.image,
      },
    ];
    expect(images.filter(({ image }) => minorOf(image) !== "2.12")).to.deep.equal([]);
  });

  it("nats.conf (every render and compose's) sets only options of NATS 2.12's configuration reference", () => {
    const problems: string[] = [];
    for (const name of Object.keys(RENDERS) as RenderName[]) {
      const files = findConfigMap(renders[name], "nats-config")?.data ?? {};
      const options = confOptions(files["nats.conf"] ?? "", files);
      expect(options, `${name}: what the reader found`).to.include.members([
        "jetstream.max_file_store",
        "authorization.users",
        ...(name === "production" ? ["cluster.routes"] : []),
      ]);
      for (const option of options) if (!NATS_2_12_OPTIONS.has(option)) problems.push(`${name}: ${option}`);
    }
    const compose = path.join(root, "deploy/compose");
    for (const option of confOptions(readFileSync(path.join(compose, "nats.conf"), "utf8"), {
      "docex-users.conf": "# the generated users: authorization { users: [...] }, checked against SERVICE_EVENTS above\n",
    }))
      if (!NATS_2_12_OPTIONS.has(option)) problems.push(`compose: ${option}`);
    expect(problems, problems.join("\n")).to.deep.equal([]);
  });

  it("one source: every render's nats.conf is infra/nats's file; an overlay replaces only the files it includes (TLS, storage, cluster, route TLS)", () => {
    const source = readFileSync(path.join(root, "deploy/k8s/infra/nats/nats.conf"), "utf8");
    const replaceable = ["tls.conf", "storage.conf", "cluster.conf", "cluster-tls.conf"];
    for (const name of Object.keys(RENDERS) as RenderName[]) {
      const { raw, files } = natsOf(name);
      expect(raw, `${name}'s nats.conf`).to.equal(source);
      for (const [file, text] of Object.entries(files)) {
        if (file === "nats.conf" || replaceable.includes(file)) continue;
        expect(text, `${name}: ${file}`).to.equal(readFileSync(path.join(root, "deploy/k8s/infra/nats", file), "utf8"));
      }
    }
  });

  it("production: the routes between the servers are mutual TLS with the served certificate, which names every route URL's host, and a peer must match a route URL (nats-routes.test.ts runs it)", () => {
    const { conf, statefulSet } = natsOf("production");
    const cluster = conf.slice(conf.search(/^cluster \{/m));
    const tls = cluster.slice(cluster.search(/^\s*tls \{/m));
    const value = (key: string) => confValue(tls, key);
    expect(value("verify")).to.equal("true");
    expect(value("verify_cert_and_check_known_urls")).to.equal("true");
    const certFile = value("cert_file") ?? "";
    expect(path.dirname(value("ca_file") ?? "")).to.equal(path.dirname(certFile));
    expect(certFile, "the certificate the reloader watches").to.equal(confValue(conf, "cert_file"));
    const certificate = ofKind<K8sObject & { spec: { secretName: string; dnsNames: string[]; usages: string[] } }>(
      renders.production,
      "Certificate",
    ).find((candidate) => candidate.spec.secretName === "nats-tls");
    expect(certificate?.spec.usages, "a route dials and is dialled").to.include.members(["server auth", "client auth"]);
    const hosts = [...cluster.matchAll(/nats:\/\/([^:\s]+):6222/g)].map(([, host]) => host ?? "");
    expect(hosts.length).to.equal(statefulSet.spec.replicas);
    for (const host of hosts)
      expect(
        certificate?.spec.dnsNames.some(
          (name) =>
            name === host || (name.startsWith("*.") && host.endsWith(name.slice(1)) && !host.slice(0, -name.length + 1).includes(".")),
        ),
        `the certificate names ${host}`,
      ).to.equal(true);
  });

  it("dev: NATS without TLS, and no service asks for it", () => {
    expect(natsOf("dev").conf).to.not.match(/^\s*tls\s*\{/m);
    expect(docexConfig("dev").NATS_TLS_CA_FILE).to.equal(undefined);
  });

  it("production: NATS serves TLS with a certificate of the internal CA for the host of NATS_URL, and every service verifies it with that CA", () => {
    const { statefulSet, server, conf } = natsOf("production");
    const certFile = confValue(conf, "cert_file") ?? "";
    const mount = server.volumeMounts?.find((candidate) => certFile.startsWith(`${candidate.mountPath}/`));
    const secretName = statefulSet.spec.template.spec.volumes?.find((volume) => volume.name === mount?.name)?.secret?.secretName;
    const certificate = ofKind<K8sObject & { spec: { secretName: string; dnsNames: string[]; issuerRef: { name: string } } }>(
      renders.production,
      "Certificate",
    ).find((candidate) => candidate.spec.secretName === secretName);
    expect(certificate, `a cert-manager Certificate for Secret ${secretName}`).to.not.equal(undefined);
    const config = docexConfig("production");
    expect(certificate?.spec.dnsNames).to.include(new URL(config.NATS_URL ?? "").hostname);
    // The CA of the services' gRPC identities, whose ca.crt each service has mounted in GRPC_TLS_DIR.
    expect(certificate?.spec.issuerRef.name).to.equal("docex-grpc-ca");
    expect(config.NATS_TLS_CA_FILE).to.equal(`${config.GRPC_TLS_DIR}/ca.crt`);
    for (const deployment of services("production")) {
      const mounted = mainContainer(deployment).volumeMounts?.some((candidate) => candidate.mountPath === config.GRPC_TLS_DIR);
      expect(mounted, `${deployment.metadata.name} mounts ${config.GRPC_TLS_DIR}`).to.equal(true);
    }
  });

  it("production: a reloader beside each server reloads it when the kubelet shows a renewed certificate, and a probe reads the certificate it serves", () => {
    const { statefulSet, server, conf } = natsOf("production");
    const pod = statefulSet.spec.template.spec as Workload["spec"]["template"]["spec"] & { shareProcessNamespace?: boolean };
    expect(pod.shareProcessNamespace, "the reloader signals the server's process").to.equal(true);
    const containers = Object.fromEntries(pod.containers.map((container) => [container.name, container]));
    const reloader = containers.reloader;
    const envOf = (container: Container | undefined, key: string) => container?.env?.find((variable) => variable.name === key)?.value;
    expect(reloader?.image, "the server's own image, at the same version").to.equal(server.image);
    const tlsDir = path.dirname(confValue(conf, "cert_file") ?? "");
    expect(path.dirname(confValue(conf, "key_file") ?? "")).to.equal(tlsDir);
    expect(envOf(reloader, "NATS_TLS_DIR"), "the directory of nats.conf's cert_file").to.equal(tlsDir);
    expect(envOf(reloader, "NATS_PID_FILE"), "nats.conf's pid_file").to.equal(confValue(conf, "pid_file"));
    expect(Number(envOf(reloader, "RELOAD_INTERVAL_SECONDS"))).to.be.within(1, 300);
    const volumeAt = (container: Container | undefined, dir: string) =>
      container?.volumeMounts?.find((mount) => mount.mountPath === dir)?.name;
    expect(volumeAt(reloader, tlsDir), "the same Secret as the server").to.equal(volumeAt(server, tlsDir));
    const pidDir = path.dirname(envOf(reloader, "NATS_PID_FILE") ?? "");
    expect(volumeAt(reloader, pidDir), "the server's pid file").to.equal(volumeAt(server, pidDir));
    // The script is the file the kit test "NATS reloads a renewed certificate" runs against a real nats-server.
    const [shell, script = ""] = reloader?.command ?? [];
    expect(shell).to.equal("/bin/sh");
    const scriptVolume = pod.volumes?.find((volume) => volume.name === volumeAt(reloader, path.dirname(script)));
    const scriptMap = findConfigMap(renders.production, scriptVolume?.configMap?.name.replace(/-[a-z0-9]{10}$/, "") ?? "");
    expect(scriptMap?.data?.[path.basename(script)]).to.equal(
      readFileSync(path.join(root, "deploy/k8s/overlays/production/nats-reload-tls.sh"), "utf8"),
    );

    const probe = containers["tls-probe"];
    const configFile = probe?.args?.find((arg) => arg.startsWith("--config.file="))?.slice("--config.file=".length) ?? "";
    const probeVolume = pod.volumes?.find((volume) => volume.name === volumeAt(probe, path.dirname(configFile)));
    const probeConfig = parse(
      findConfigMap(renders.production, probeVolume?.configMap?.name.replace(/-[a-z0-9]{10}$/, "") ?? "")?.data?.[
        path.basename(configFile)
      ] ?? "",
    ) as { modules: Record<string, { prober: string; tcp: { tls_config: { ca_file: string; server_name: string } } }> };
    const podMonitor = find<K8sObject & { spec: { podMetricsEndpoints: { port: string; params?: Record<string, string[]> }[] } }>(
      monitoring,
      "PodMonitor",
      "nats",
    );
    const endpoint = podMonitor?.spec.podMetricsEndpoints.find((candidate) => candidate.port === "tls-probe");
    const module = probeConfig.modules[endpoint?.params?.module?.[0] ?? ""];
    expect(module?.prober).to.equal("tcp");
    expect(endpoint?.params?.target).to.deep.equal([`127.0.0.1:${server.ports?.find((port) => port.name === "client")?.containerPort}`]);
    expect(path.dirname(module?.tcp.tls_config.ca_file ?? ""), "the CA beside the served certificate").to.equal(tlsDir);
    expect(volumeAt(probe, tlsDir)).to.equal(volumeAt(server, tlsDir));
    expect(docexConfig("production").NATS_URL, "the name the services verify").to.include(`//${module?.tcp.tls_config.server_name}:`);
  });

  it("NATS's alerts parse as PromQL, use only the exporter's metrics and cover storage, consumer pending and stream leaders", () => {
    const rules = ofKind<K8sObject & { spec: { groups: { rules: { alert: string; expr: string }[] }[] } }>(monitoring, "PrometheusRule")
      .filter((rule) => rule.metadata.name === "docex-nats")
      .flatMap((rule) => rule.spec.groups.flatMap((group) => group.rules));
    const problems = promqlProblems(rules, EXPORTER_METRICS, "prometheus-nats-exporter");
    expect(problems, problems.join("\n")).to.deep.equal([]);
    const exprs = rules.map((rule) => rule.expr).join("\n");
    for (const metric of [
      "jetstream_server_max_storage",
      "jetstream_consumer_num_pending",
      'stream_leader=""',
      "gnatsd_healthz_status",
      "probe_ssl_earliest_cert_expiry",
      "probe_success",
    ])
      expect(exprs, metric).to.include(metric);
  });
});
