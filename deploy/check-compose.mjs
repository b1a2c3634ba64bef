#!/usr/bin/env node
// Keeps docker-compose.yml and deploy/Dockerfile true to the repository: every process
// (the gateway and each folder of services/) is in both, on the same ports, and the
// compose stack keeps its promises: only the gateway is published, everything has a
// health check, start-up order waits for health, secrets are never given values.
//
//   node deploy/check-compose.mjs          prints one line per check and "N passed, N failed"
//   import { checkCompose } from "./deploy/check-compose.mjs"   returns the results
//
// The compose file is read with the `yaml` or `js-yaml` package when one is installed,
// else through `docker compose config --no-interpolate`. When the Docker Compose CLI is
// there, `docker compose config` also validates the file against the Compose schema.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const defaultRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const infrastructure = ["postgres", "nats"];
/** One-shot jobs that run to completion before the services start: the gRPC identities (mutual TLS). */
const jobs = ["grpc-identity"];
/** What receives the traces (OTLP) and shows them; nothing waits for it. */
const observability = ["jaeger"];
/** Published ports allowed besides the gateway's 8080: Jaeger's UI, on the machine only. */
const JAEGER_UI_PORT = 16686;
/** Compose's interpolation: Jaeger's OTLP/HTTP endpoint unless the shell or .env names another. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: compose's own interpolation syntax, not a template
const JAEGER_ENDPOINT = "${OTEL_EXPORTER_OTLP_ENDPOINT:-http://jaeger:4318}";
/** Every process starts with the kit's tracing register loaded first (it does nothing unless OTEL_* turns tracing on). */
const TRACING_REGISTER = "@docex/kit/tracing/register";
const secrets = { AUTH_KEY_ENCRYPTION_KEY: "auth", WEBHOOK_KEY_ENCRYPTION_KEY: "webhook" };
/** The generated users of NATS (npm run generate) that the compose NATS loads, as the cluster's does. */
const NATS_USERS_FILE = "deploy/k8s/infra/nats/docex-users.conf";
/** The variable of NATS's environment that holds a user's password (scripts/src/nats-users.ts). */
const natsPasswordVariable = (user) => `NATS_${user.toUpperCase()}_PASSWORD`;
/** A compose variable the file requires: `${NAME:?message}`. */
const requiredVariable = (variable) => new RegExp(`^\\$\\{${variable}:\\?[^}]+\\}$`);

/** The users docex-users.conf names, and the variables it reads their passwords from. */
function natsUsersOf(root) {
  const text = readFileSync(path.join(root, NATS_USERS_FILE), "utf8");
  const users = [...text.matchAll(/user: "([a-z]+)"\n\s*password: \$([A-Z_]+)/g)].map(([, user, variable]) => ({ user, variable }));
  return users;
}

/** The processes docex runs: the gateway and every workspace folder under services/. */
function expectedProcesses(root) {
  const servicesDir = path.join(root, "services");
  const services = readdirSync(servicesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(servicesDir, entry.name, "package.json")))
    .map((entry) => entry.name)
    .sort();
  return { services, processes: ["gateway", ...services] };
}

async function yamlParser() {
  try {
    const { parse } = await import("yaml");
    return { name: "yaml", parse: (text) => parse(text, { merge: true }) };
  } catch {}
  try {
    const jsYaml = await import("js-yaml");
    const load = jsYaml.load ?? jsYaml.default.load;
    return { name: "js-yaml", parse: (text) => load(text) };
  } catch {}
  return undefined;
}

function dockerCompose(root, args, env = {}) {
  const result = spawnSync("docker", ["compose", "--env-file", "/dev/null", "-f", path.join(root, "docker-compose.yml"), ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  return { ran: !result.error, status: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
}

function hasComposeCli(root) {
  return dockerCompose(root, ["version"]).status === 0;
}

async function readCompose(root) {
  const parser = await yamlParser();
  if (parser) return { via: parser.name, model: parser.parse(readFileSync(path.join(root, "docker-compose.yml"), "utf8")) };
  const result = dockerCompose(root, ["config", "--no-interpolate", "--format", "json"]);
  if (result.status === 0) return { via: "docker compose config", model: JSON.parse(result.stdout) };
  throw new Error("no YAML parser (`yaml` or `js-yaml`) is installed and `docker compose config` is not available");
}

/** Environment as a map, whether written as a map or as a list of KEY=VALUE. */
function environmentOf(service) {
  const env = service.environment ?? {};
  if (!Array.isArray(env)) return env;
  return Object.fromEntries(
    env.map((entry) => {
      const index = entry.indexOf("=");
      return index === -1 ? [entry, null] : [entry.slice(0, index), entry.slice(index + 1)];
    }),
  );
}

/** depends_on as name → condition; the short list form means `service_started`. */
function dependenciesOf(service) {
  const dependsOn = service.depends_on ?? {};
  if (Array.isArray(dependsOn)) return Object.fromEntries(dependsOn.map((name) => [name, "service_started"]));
  return Object.fromEntries(Object.entries(dependsOn).map(([name, spec]) => [name, spec?.condition ?? "service_started"]));
}

function buildArgsOf(service) {
  const args = service.build?.args ?? {};
  if (!Array.isArray(args)) return args;
  return Object.fromEntries(args.map((entry) => entry.split(/=(.*)/s, 2)));
}

/** Published ports as container ports; a port spec without a host part is still published. */
function publishedPortsOf(service) {
  return (service.ports ?? []).map((port) => {
    if (typeof port === "object") return Number(port.target);
    const spec = String(port).split("/")[0];
    return Number(spec.split(":").at(-1).split("-")[0]);
  });
}

/** Per `svc-<name>` stage of the Dockerfile: its ENV ports and its CMD. */
function dockerfileStages(text) {
  const stages = {};
  let current;
  for (const line of text.split("\n")) {
    const from = line.match(/^FROM\s+\S+\s+AS\s+svc-([a-z0-9-]+)\s*$/i);
    if (from) {
      current = stages[from[1]] = { env: {}, cmd: undefined, expose: [] };
      continue;
    }
    if (/^FROM\s/i.test(line)) {
      current = undefined;
      continue;
    }
    if (!current) continue;
    const env = line.match(/^ENV\s+(.+)$/);
    if (env) for (const [, key, value] of env[1].matchAll(/([A-Z_]+)=(\S+)/g)) current.env[key] = value;
    const expose = line.match(/^EXPOSE\s+(.+)$/);
    if (expose) current.expose = expose[1].trim().split(/\s+/).map(Number);
    const cmd = line.match(/^CMD\s+(\[.*\])\s*$/);
    if (cmd) current.cmd = JSON.parse(cmd[1]);
  }
  return stages;
}

/** The port table the kit defaults to (`npm start`), when its source can be read. */
function kitPorts(root) {
  const file = path.join(root, "packages", "kit", "src", "config.ts");
  if (!existsSync(file)) return undefined;
  const table = {};
  for (const [, name, http, grpc] of readFileSync(file, "utf8").matchAll(/(\w+): \{ http: (\d+), grpc: (\d+) \}/g)) {
    table[name] = { http: Number(http), grpc: Number(grpc) };
  }
  return Object.keys(table).length > 0 ? table : undefined;
}

/** The longest a process takes to stop after SIGTERM: the default SHUTDOWN_TIMEOUT_MS and CLOSE_TIMEOUT_MS of the kit. */
function worstStopOf(root) {
  const config = readFileSync(path.join(root, "packages", "kit", "src", "config.ts"), "utf8");
  const runtime = readFileSync(path.join(root, "packages", "kit", "src", "runtime.ts"), "utf8");
  const shutdown = config.match(/SHUTDOWN_TIMEOUT_MS:[^\n]*\.default\(([\d_]+)\)/)?.[1];
  const close = runtime.match(/CLOSE_TIMEOUT_MS = ([\d_]+);/)?.[1];
  if (!shutdown || !close) throw new Error("SHUTDOWN_TIMEOUT_MS or CLOSE_TIMEOUT_MS not found in packages/kit/src");
  return (Number(shutdown.replaceAll("_", "")) + Number(close.replaceAll("_", ""))) / 1000;
}

/** A compose duration ("30s", "1m30s", or seconds as a number) in seconds; 10 (Docker's default) when unset. */
function secondsOf(duration) {
  if (duration === undefined) return 10;
  if (typeof duration === "number") return duration;
  const units = { h: 3600, m: 60, s: 1, ms: 0.001 };
  let seconds = 0;
  for (const [, value, unit] of String(duration).matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) seconds += Number(value) * units[unit];
  return seconds;
}

export async function checkCompose({ root = defaultRoot } = {}) {
  const results = [];
  const check = (name, problems) => {
    const list = (Array.isArray(problems) ? problems : [problems]).filter(Boolean);
    results.push({ name, ok: list.length === 0, detail: list.join("; ") });
  };

  const { services: serviceNames, processes } = expectedProcesses(root);
  let compose;
  try {
    compose = await readCompose(root);
    check(`docker-compose.yml parses (via ${compose.via})`, []);
  } catch (error) {
    check("docker-compose.yml parses", error.message);
    return results;
  }
  const services = compose.model?.services ?? {};
  const stages = dockerfileStages(readFileSync(path.join(root, "deploy", "Dockerfile"), "utf8"));
  const dirOf = (name) => (name === "gateway" ? "gateway" : `services/${name}`);
  const upper = (name) => name.toUpperCase();

  const expectedNames = [...infrastructure, ...jobs, ...observability, ...processes].sort();
  const actualNames = Object.keys(services).sort();
  check("compose has exactly postgres, nats, the grpc-identity job, jaeger, the gateway and every service in services/", [
    ...expectedNames.filter((name) => !actualNames.includes(name)).map((name) => `missing ${name}`),
    ...actualNames.filter((name) => !expectedNames.includes(name)).map((name) => `unexpected ${name}`),
  ]);

  for (const name of processes) {
    const service = services[name];
    if (!service) continue;
    const build = service.build ?? {};
    const context = path.resolve(root, build.context ?? "");
    check(`${name} is built from deploy/Dockerfile at the repository root with SERVICE=${name}`, [
      context !== root && `context is ${build.context}`,
      path.normalize(build.dockerfile ?? "") !== path.normalize("deploy/Dockerfile") && `dockerfile is ${build.dockerfile}`,
      buildArgsOf(service).SERVICE !== name && `build arg SERVICE is ${buildArgsOf(service).SERVICE}`,
    ]);
  }

  check(
    "only the gateway publishes ports, and only 8080 (and Jaeger its UI, the intake its SMTP port, on 127.0.0.1 only)",
    Object.entries(services).flatMap(([name, service]) => {
      const ports = publishedPortsOf(service);
      if (name === "gateway")
        return ports.length === 1 && ports[0] === 8080 ? [] : [`gateway publishes ${JSON.stringify(service.ports ?? [])}`];
      if (name === "jaeger")
        return ports.length === 1 &&
          ports[0] === JAEGER_UI_PORT &&
          (service.ports ?? []).every((port) => String(port.host_ip ?? port).startsWith("127.0.0.1"))
          ? []
          : [`jaeger publishes ${JSON.stringify(service.ports ?? [])}`];
      if (name === "intake")
        return ports.length === 1 &&
          ports[0] === 2526 &&
          (service.ports ?? []).every((port) => String(port.host_ip ?? port).startsWith("127.0.0.1"))
          ? []
          : [`intake publishes ${JSON.stringify(service.ports ?? [])}`];
      return [
        ports.length > 0 && `${name} publishes ${JSON.stringify(service.ports)}`,
        service.network_mode === "host" && `${name} uses the host network`,
      ];
    }),
  );

  check(
    "every service has a health check (one-shot jobs excepted)",
    Object.entries(services).map(([name, service]) => {
      if (jobs.includes(name)) return undefined;
      const test = service.healthcheck?.test;
      const testList = Array.isArray(test) ? test : test ? [test] : [];
      if (service.healthcheck?.disable || testList.length === 0 || testList[0] === "NONE") return `${name} has none`;
      return undefined;
    }),
  );

  check(
    "every depends_on waits for service_healthy of a service (service_completed_successfully of a job) that exists",
    Object.entries(services).flatMap(([name, service]) =>
      Object.entries(dependenciesOf(service)).map(([dependency, condition]) => {
        if (!services[dependency]) return `${name} depends on unknown ${dependency}`;
        const expected = jobs.includes(dependency) ? "service_completed_successfully" : "service_healthy";
        return condition === expected ? undefined : `${name} → ${dependency} waits for ${condition}`;
      }),
    ),
  );

  // Mutual TLS: each service waits for the identities, and mounts its own (and only its own) read-only.
  const identityJob = services["grpc-identity"];
  const jobCommand = Array.isArray(identityJob?.command) ? identityJob.command : [];
  check("every service mounts its own gRPC identity (grpc-identity/<service>, read-only) at GRPC_TLS_DIR", [
    !identityJob && "no grpc-identity job",
    ...serviceNames
      .filter((name) => services[name])
      .flatMap((name) => {
        const service = services[name];
        const tlsDir = environmentOf(service).GRPC_TLS_DIR;
        const mounts = (service.volumes ?? []).filter((volume) => typeof volume === "object" && volume.source === "grpc-identity");
        return [
          !tlsDir && `${name} has no GRPC_TLS_DIR`,
          String(environmentOf(service).GRPC_INSECURE) === "true" && `${name} sets GRPC_INSECURE=true`,
          dependenciesOf(service)["grpc-identity"] !== "service_completed_successfully" && `${name} does not wait for grpc-identity`,
          mounts.length !== 1 && `${name} mounts grpc-identity ${mounts.length} times`,
          mounts.length === 1 && mounts[0].target !== tlsDir && `${name} mounts it at ${mounts[0].target}, not GRPC_TLS_DIR`,
          mounts.length === 1 && mounts[0].volume?.subpath !== name && `${name} mounts subpath ${mounts[0].volume?.subpath}`,
          mounts.length === 1 && mounts[0].read_only !== true && `${name} mounts it writable`,
          !jobCommand.includes(name) && `grpc-identity does not issue ${name}`,
        ];
      }),
  ]);

  // The CA's command line is in no service image: the job has an image of its own, of packages/private-ca.
  const caManifestFile = path.join(root, "packages", "private-ca", "package.json");
  const caManifest = existsSync(caManifestFile) ? JSON.parse(readFileSync(caManifestFile, "utf8")) : undefined;
  const caCli = "packages/private-ca/dist/identity-cli.js";
  const identityBuild = identityJob?.build ?? {};
  check("the grpc-identity job runs @docex/private-ca's command line from its own image (SERVICE=private-ca)", [
    !caManifest && "no packages/private-ca/package.json",
    caManifest && caManifest.name !== "@docex/private-ca" && `packages/private-ca/package.json is named ${caManifest.name}`,
    !existsSync(path.join(root, "packages", "private-ca", "src", "identity-cli.ts")) && "no packages/private-ca/src/identity-cli.ts",
    identityJob && path.resolve(root, identityBuild.context ?? "") !== root && `context is ${identityBuild.context}`,
    identityJob &&
      path.normalize(identityBuild.dockerfile ?? "") !== path.normalize("deploy/Dockerfile") &&
      `dockerfile is ${identityBuild.dockerfile}`,
    identityJob && buildArgsOf(identityJob).SERVICE !== "private-ca" && `build arg SERVICE is ${buildArgsOf(identityJob).SERVICE}`,
    identityJob &&
      (jobCommand[0] !== "node" || jobCommand[1] !== caCli) &&
      `command is ${JSON.stringify(jobCommand.slice(0, 2))}, not node ${caCli}`,
    !stages["private-ca"] && "deploy/Dockerfile has no svc-private-ca stage",
    stages["private-ca"] &&
      JSON.stringify(stages["private-ca"].cmd) !== JSON.stringify(["node", caCli]) &&
      `svc-private-ca's CMD is ${JSON.stringify(stages["private-ca"].cmd)}`,
  ]);

  check("every service waits for postgres and nats; the gateway waits for every service", [
    ...serviceNames
      .filter((name) => services[name])
      .flatMap((name) => {
        const dependencies = Object.keys(dependenciesOf(services[name]));
        return infrastructure
          .filter((dependency) => !dependencies.includes(dependency))
          .map((dependency) => `${name} does not wait for ${dependency}`);
      }),
    ...serviceNames
      .filter((name) => !Object.keys(dependenciesOf(services.gateway ?? {})).includes(name))
      .map((name) => `gateway does not wait for ${name}`),
  ]);

  for (const name of processes) {
    const stage = stages[name];
    if (!stage) {
      check(`deploy/Dockerfile has a svc-${name} stage`, `no stage svc-${name}`);
      continue;
    }
    const main = `${dirOf(name)}/dist/main.js`;
    const manifest = path.join(root, dirOf(name), "package.json");
    const packageName = existsSync(manifest) ? JSON.parse(readFileSync(manifest, "utf8")).name : undefined;
    const portVar = name === "gateway" ? "GATEWAY_PORT" : "PORT";
    const expose = name === "gateway" ? [stage.env.GATEWAY_PORT] : [stage.env.PORT, stage.env.GRPC_PORT];
    check(`deploy/Dockerfile stage svc-${name} runs ${main} (after the tracing register) and exposes its ports`, [
      JSON.stringify(stage.cmd) !== JSON.stringify(["node", "--import", TRACING_REGISTER, main]) && `CMD is ${JSON.stringify(stage.cmd)}`,
      packageName !== `@docex/${name}` && `${dirOf(name)}/package.json is named ${packageName}, the build filters on @docex/${name}`,
      !stage.env[portVar] && `no ENV ${portVar}`,
      name !== "gateway" && !stage.env.GRPC_PORT && "no ENV GRPC_PORT",
      JSON.stringify(stage.expose) !== JSON.stringify(expose.map(Number)) && `EXPOSE ${stage.expose.join(" ")}`,
    ]);
  }

  const gatewayEnv = environmentOf(services.gateway ?? {});
  const kit = kitPorts(root);
  for (const name of serviceNames) {
    const stage = stages[name];
    const service = services[name];
    if (!stage || !service) continue;
    const { PORT: http, GRPC_PORT: grpc } = stage.env;
    const env = environmentOf(service);
    const problems = [
      env.PORT !== undefined && String(env.PORT) !== http && `compose PORT ${env.PORT} ≠ image ${http}`,
      env.GRPC_PORT !== undefined && String(env.GRPC_PORT) !== grpc && `compose GRPC_PORT ${env.GRPC_PORT} ≠ image ${grpc}`,
      String(gatewayEnv[`${upper(name)}_URL`]) !== `http://${name}:${http}` &&
        `gateway ${upper(name)}_URL is ${gatewayEnv[`${upper(name)}_URL`]}`,
      kit?.[name] &&
        (kit[name].http !== Number(http) || kit[name].grpc !== Number(grpc)) &&
        `kit SERVICE_PORTS has ${JSON.stringify(kit[name])}`,
    ];
    for (const caller of serviceNames.filter((other) => services[other])) {
      const address = environmentOf(services[caller])[`${upper(name)}_GRPC_ADDR`];
      if (String(address) !== `${name}:${grpc}`) problems.push(`${caller} has ${upper(name)}_GRPC_ADDR=${address}`);
    }
    check(`${name} is reached on http ${http} and grpc ${grpc} everywhere`, problems);
  }

  check(
    "every process listens on all interfaces of its container and uses the compose Postgres and NATS",
    processes
      .filter((name) => services[name])
      .flatMap((name) => {
        const env = environmentOf(services[name]);
        return [
          env.HOST !== undefined && env.HOST !== "0.0.0.0" && `${name} sets HOST=${env.HOST}`,
          name !== "gateway" &&
            env.DATABASE_URL !== "postgres://postgres:postgres@postgres:5432/postgres" &&
            `${name} DATABASE_URL=${env.DATABASE_URL}`,
          name !== "gateway" && env.NATS_URL !== "nats://nats:4222" && `${name} NATS_URL=${env.NATS_URL}`,
        ];
      }),
  );

  check(
    "encryption keys are required variables, given to their service only",
    Object.entries(secrets).flatMap(([variable, owner]) =>
      Object.entries(services).map(([name, service]) => {
        const value = environmentOf(service)[variable];
        if (name !== owner) return value === undefined ? undefined : `${name} receives ${variable}`;
        const required = new RegExp(`^\\$\\{${variable}:\\?[^}]+\\}$`);
        return typeof value === "string" && required.test(value)
          ? undefined
          : `${owner} ${variable} is ${JSON.stringify(value)}, not \${${variable}:?message}`;
      }),
    ),
  );

  check(
    "every process sends its traces to jaeger over OTLP/HTTP unless the shell says otherwise, and nothing waits for jaeger",
    processes
      .filter((name) => services[name])
      .flatMap((name) => {
        const env = environmentOf(services[name]);
        return [
          env.OTEL_EXPORTER_OTLP_ENDPOINT !== JAEGER_ENDPOINT && `${name} OTEL_EXPORTER_OTLP_ENDPOINT=${env.OTEL_EXPORTER_OTLP_ENDPOINT}`,
          !String(env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "").includes("http/protobuf") &&
            `${name} OTEL_EXPORTER_OTLP_PROTOCOL=${env.OTEL_EXPORTER_OTLP_PROTOCOL}`,
          dependenciesOf(services[name]).jaeger !== undefined && `${name} waits for jaeger`,
        ];
      }),
  );

  const worstStopSeconds = worstStopOf(root);
  check(
    `every process has a stop_grace_period above its worst stop time (${worstStopSeconds} s: SHUTDOWN_TIMEOUT_MS and CLOSE_TIMEOUT_MS of the kit)`,
    processes
      .filter((name) => services[name])
      .map((name) => {
        const grace = secondsOf(services[name].stop_grace_period);
        return grace > worstStopSeconds ? undefined : `${name} stop_grace_period is ${services[name].stop_grace_period ?? "unset (10 s)"}`;
      }),
  );

  // NATS: a user per service, as npm start, the fault stack and deploy/k8s run it (issue 39, item 3).
  const natsUsers = natsUsersOf(root);
  const nats = services.nats ?? {};
  const natsEnv = environmentOf(nats);
  const natsCommand = Array.isArray(nats.command) ? nats.command : String(nats.command ?? "").split(/\s+/);
  const configAt = natsCommand[natsCommand.indexOf("-c") + 1];
  const bindOf = (target) =>
    (nats.volumes ?? []).find((volume) => typeof volume === "object" && volume.type === "bind" && volume.target === target);
  const natsConfig = configAt ? bindOf(configAt) : undefined;
  const usersTarget = configAt ? path.posix.join(path.posix.dirname(configAt), "docex-users.conf") : undefined;
  const usersMount = usersTarget ? bindOf(usersTarget) : undefined;
  const configText =
    natsConfig && existsSync(path.resolve(root, natsConfig.source)) ? readFileSync(path.resolve(root, natsConfig.source), "utf8") : "";
  check(`nats loads the generated users (${NATS_USERS_FILE}) and reads every user's password from a required variable`, [
    natsUsers.length === 0 && `${NATS_USERS_FILE} names no user`,
    !configAt && `nats runs ${JSON.stringify(nats.command)}, not with -c <config>`,
    configAt && !natsConfig && `nats does not mount its configuration at ${configAt}`,
    natsConfig && natsConfig.read_only !== true && "nats mounts its configuration writable",
    natsConfig && !/^include \.\/docex-users\.conf$/m.test(configText) && `${natsConfig.source} does not include ./docex-users.conf`,
    natsConfig && !/^jetstream/m.test(configText) && `${natsConfig.source} does not turn JetStream on`,
    configAt && !usersMount && `nats does not mount the users file at ${usersTarget}`,
    usersMount &&
      path.normalize(usersMount.source) !== path.normalize(`./${NATS_USERS_FILE}`) &&
      `nats mounts ${usersMount.source} as its users`,
    usersMount && usersMount.read_only !== true && "nats mounts its users writable",
    ...natsUsers.map(({ variable }) =>
      requiredVariable(variable).test(String(natsEnv[variable] ?? ""))
        ? undefined
        : `nats ${variable} is ${JSON.stringify(natsEnv[variable])}`,
    ),
    natsEnv.NATS_TOKEN !== undefined && "nats is given a token",
  ]);
  check(
    "every service connects to NATS as its own user, with its own password only (no shared token)",
    serviceNames
      .filter((name) => services[name])
      .flatMap((name) => {
        const env = environmentOf(services[name]);
        const variable = natsPasswordVariable(name);
        const others = natsUsers.filter((user) => user.variable !== variable);
        return [
          !natsUsers.some((user) => user.user === name && user.variable === variable) && `${NATS_USERS_FILE} has no user ${name}`,
          env.NATS_USER !== name && `${name} NATS_USER=${env.NATS_USER}`,
          !requiredVariable(variable).test(String(env.NATS_PASSWORD ?? "")) &&
            `${name} NATS_PASSWORD is ${JSON.stringify(env.NATS_PASSWORD)}`,
          env.NATS_TOKEN !== undefined && `${name} is given NATS_TOKEN`,
          ...others
            .filter(({ variable: other }) => Object.values(env).some((value) => String(value).includes(other)))
            .map(({ user }) => `${name} receives ${user}'s NATS password`),
        ];
      }),
  );

  const allowPrivate = environmentOf(services.webhook ?? {}).WEBHOOK_ALLOW_PRIVATE_TARGETS;
  check(
    "webhook refuses private targets (WEBHOOK_ALLOW_PRIVATE_TARGETS=false)",
    String(allowPrivate) !== "false" && `it is ${allowPrivate}`,
  );

  if (hasComposeCli(root)) {
    const dummies = Object.fromEntries(
      [...Object.keys(secrets), ...natsUsers.map(({ variable }) => variable)].map((variable) => [variable, "ZHVtbXk="]),
    );
    const valid = dockerCompose(root, ["config", "--quiet"], dummies);
    check("docker compose config accepts the file", valid.status === 0 ? [] : valid.stderr.trim());
    const withoutKeys = dockerCompose(
      root,
      ["config", "--quiet"],
      Object.fromEntries(Object.keys(secrets).map((variable) => [variable, ""])),
    );
    check(
      "docker compose config refuses to run without the encryption keys",
      withoutKeys.status !== 0 && /KEY_ENCRYPTION_KEY/.test(withoutKeys.stderr) ? [] : "it accepted a file without them",
    );
  } else {
    results.push({ name: "docker compose config: skipped, the Docker Compose CLI is not installed", ok: true, skipped: true, detail: "" });
  }
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const results = await checkCompose();
  for (const result of results) console.log(`${result.ok ? "ok" : "not ok"} - ${result.name}${result.detail ? `: ${result.detail}` : ""}`);
  const failed = results.filter((result) => !result.ok).length;
  const skipped = results.filter((result) => result.skipped).length;
  console.log(`${results.length - failed - skipped} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
  process.exitCode = failed > 0 ? 1 : 0;
}
