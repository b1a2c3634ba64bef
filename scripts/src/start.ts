import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { SERVICE_NAMES } from "@docex/kit/config";
import { SealedWithAnotherKeyError } from "@docex/kit/crypto";
import { ensureGrpcIdentityDirectory } from "@docex/private-ca";
import { startNats, startPostgres } from "./infrastructure.js";
import { localOwner, signInInstructions } from "./local-owner.js";
import { sealedDataAdvice } from "./local-reset.js";
import { loadLocalSecrets } from "./local-secrets.js";
import { LocalMailSink } from "./mail-sink.js";
import {
  intakeSmtpPort,
  parseStackReplicas,
  replicasOf,
  serviceEnvironment,
  sharedStackEnvironment,
  stackPort,
} from "./stack-environment.js";
import { stackPortPlan, stackPortProblems } from "./stack-ports.js";
import { waitUntilReady } from "./stack-readiness.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const dataDir = path.join(root, ".data");
const portOffset = Number(process.env.STACK_PORT_OFFSET ?? 0);
const readyTimeoutMs = Number(process.env.STACK_READY_TIMEOUT_MS ?? 90_000);
/** Loaded before each process's main module: OpenTelemetry tracing when the OTEL_* variables turn it on. */
const TRACING_REGISTER = import.meta.resolve("@docex/kit/tracing/register");
const say = (message: string) => process.stdout.write(`[stack] ${message}\n`);
/**
 * A stack of its own on shared Postgres (and NATS, when it uses a shared one): databases `<namespace>_<service>` and the
 * JetStream stream `<NAMESPACE>`. End-to-end tests use it; unset, the names are the production ones.
 */
const namespace = process.env.STACK_NAMESPACE;
if (namespace !== undefined && !/^[a-z][a-z0-9_]{0,30}$/.test(namespace)) {
  throw new Error("STACK_NAMESPACE must be a lowercase identifier such as docex_e2e_1");
}

/** STACK_REPLICAS=document=2,webhook=2: processes per service; checked before anything starts. */
const replicas = parseStackReplicas(process.env.STACK_REPLICAS);

/**
 * STACK_MIGRATE_FIRST=true: as deploy/k8s does, each service's database is migrated by a process of its own
 * (MIGRATE_ONLY=true) that exits, and the serving processes start with MIGRATE_ON_START=false.
 */
const migrateFirst = process.env.STACK_MIGRATE_FIRST === "true";

const mailPagePort = Number(process.env.MAIL_PAGE_PORT ?? 8025 + portOffset);

/**
 * The services' gRPC identities (mutual TLS): a private CA and one certificate per service under
 * .data/grpc-identity, made once and kept; a service added later gets its certificate on the next start.
 * GRPC_TLS_DIR given uses that directory as it is; GRPC_INSECURE=true runs plaintext gRPC (development only).
 */
async function grpcIdentitySettings(): Promise<Record<string, string>> {
  if (process.env.GRPC_INSECURE === "true") {
    say("GRPC_INSECURE=true: service-to-service gRPC is plaintext and unauthenticated");
    return { GRPC_INSECURE: "true" };
  }
  if (process.env.GRPC_TLS_DIR) return { GRPC_TLS_DIR: process.env.GRPC_TLS_DIR };
  const dir = path.join(dataDir, "grpc-identity");
  // The gateway's certificate signs the client address it passes on to the services.
  const written = await ensureGrpcIdentityDirectory(dir, [...SERVICE_NAMES, "gateway"]);
  if (written.length > 0) say(`gRPC identities: wrote ${written.join(", ")} to ${path.relative(root, dir)}`);
  return { GRPC_TLS_DIR: dir };
}

interface Process {
  name: string;
  child: ChildProcess;
  httpPort: number;
}

/** A process of the stack, its output in the log line by line behind its name. */
function spawnLabelled(name: string, entry: string, env: NodeJS.ProcessEnv): ChildProcess {
  // The tracing register goes first, so that it can hook the modules it instruments (it does nothing unless OTEL_* asks).
  const child = spawn(process.execPath, ["--import", TRACING_REGISTER, path.join(root, entry)], { env, stdio: ["ignore", "pipe", "pipe"] });
  const label = `[${name}]`.padEnd(13);
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream! }).on("line", (line) => process.stdout.write(`${label}${line}\n`));
  }
  return child;
}

function startProcess(name: string, entry: string, env: NodeJS.ProcessEnv, httpPort: number): Process {
  const child = spawnLabelled(name, entry, env);
  child.once("exit", (code, signal) => {
    if (stopping) return;
    if (code === SealedWithAnotherKeyError.exitCode) {
      for (const line of sealedDataAdvice(name, `${name.toUpperCase()}_KEY_ENCRYPTION_KEY`)) say(line);
    }
    say(`${name} exited (${signal ?? code}); stopping the stack`);
    void stopAll(1);
  });
  return { name, child, httpPort };
}

/** Runs `entry` with MIGRATE_ONLY=true to its end, as deploy/k8s's init container `migrate` does; refuses a failed run. */
async function migrate(name: string, entry: string, env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawnLabelled(name, entry, { ...env, MIGRATE_ONLY: "true" });
  migrating.add(child);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once("exit", (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
  );
  migrating.delete(child);
  if (code !== 0) throw new Error(`${name}'s migrations failed (${signal ?? code})`);
}

let stopping = false;
const processes: Process[] = [];
/** MIGRATE_ONLY runs still going (STACK_MIGRATE_FIRST): stopped with the rest. */
const migrating = new Set<ChildProcess>();
const infrastructure: Array<{ stop(): Promise<void> }> = [];

async function stopAll(exitCode: number): Promise<never> {
  if (stopping) process.exit(exitCode);
  stopping = true;
  say("stopping");
  for (const child of migrating) child.kill("SIGTERM");
  await Promise.all(
    processes.map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const force = setTimeout(() => child.kill("SIGKILL"), 15_000);
          child.once("exit", () => {
            clearTimeout(force);
            resolve();
          });
          child.kill("SIGTERM");
        }),
    ),
  );
  for (const part of infrastructure.reverse()) await part.stop().catch((error: unknown) => say(`stop failed: ${String(error)}`));
  say("stopped");
  process.exit(exitCode);
}

async function main(): Promise<void> {
  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));
  // Before anything starts: every port free, and none that fetch refuses (stack-ports.ts).
  const layout = { portOffset, namespace, replicas };
  const gatewayPort = Number(process.env.GATEWAY_PORT ?? stackPort("gateway", "http", layout));
  const portProblems = await stackPortProblems(
    stackPortPlan(layout, { gatewayPort, mailPagePort: process.env.SMTP_URL ? undefined : mailPagePort }),
    layout,
  );
  if (portProblems.length > 0) throw new Error(`the stack's ports will not do:\n  ${portProblems.join("\n  ")}`);
  mkdirSync(dataDir, { recursive: true });
  const postgres = await startPostgres(dataDir, say);
  infrastructure.push(postgres);
  const nats = await startNats(dataDir, say, {
    portOffset,
    namespace: namespace ? { stream: namespace.toUpperCase(), subjectPrefix: namespace } : undefined,
    temporaryStore: namespace !== undefined,
  });
  infrastructure.push(nats);

  // Kept on the database server beside the data they seal, so that every checkout opens it; given ones win.
  const secrets = await loadLocalSecrets(postgres.url, { legacyFile: path.join(dataDir, "local-secrets.json") });
  const owner = localOwner(process.env, secrets);
  const mail = process.env.SMTP_URL
    ? undefined
    : await LocalMailSink.start(mailPagePort, (line) => process.stdout.write(`[mail]       ${line}\n`));
  if (mail) infrastructure.push(mail);

  const shared: NodeJS.ProcessEnv = {
    AUTH_KEY_ENCRYPTION_KEY: secrets.AUTH_KEY_ENCRYPTION_KEY,
    WEBHOOK_KEY_ENCRYPTION_KEY: secrets.WEBHOOK_KEY_ENCRYPTION_KEY,
    ...process.env,
    BOOTSTRAP_OWNER_EMAIL: owner.email,
    BOOTSTRAP_OWNER_PASSWORD: owner.password,
    ...(mail ? { SMTP_URL: mail.smtpUrl } : {}),
    ...(await grpcIdentitySettings()),
    DATABASE_URL: postgres.url,
    NATS_URL: nats.url,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS ?? "true",
    // Mailed links open this stack's own validation app (/app/auth/magic-login?token=…), also at a port offset.
    AUTH_APP_URL: process.env.AUTH_APP_URL ?? `http://127.0.0.1:${gatewayPort}/app`,
    LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
    ...sharedStackEnvironment(layout),
  };
  if (migrateFirst) {
    await Promise.all(
      SERVICE_NAMES.map((name) =>
        migrate(name, `services/${name}/dist/main.js`, { ...shared, ...serviceEnvironment(name, layout, 0), ...nats.credentials[name] }),
      ),
    );
    shared.MIGRATE_ON_START = "false";
    say(`migrated first (STACK_MIGRATE_FIRST): ${SERVICE_NAMES.join(", ")}; the services start with MIGRATE_ON_START=false`);
  }
  for (const name of SERVICE_NAMES) {
    for (let index = 0; index < replicasOf(name, layout); index++) {
      const env: NodeJS.ProcessEnv = { ...shared, ...serviceEnvironment(name, layout, index), ...nats.credentials[name] };
      const label = index === 0 ? name : `${name}-${index + 1}`;
      processes.push(startProcess(label, `services/${name}/dist/main.js`, env, stackPort(name, "http", layout, index)));
    }
  }
  processes.push(startProcess("gateway", "gateway/dist/main.js", { ...shared, GATEWAY_PORT: String(gatewayPort) }, gatewayPort));
  await waitUntilReady(
    processes.map((proc) => ({
      ...proc,
      exited: () =>
        proc.child.exitCode !== null || proc.child.signalCode !== null ? String(proc.child.signalCode ?? proc.child.exitCode) : undefined,
    })),
    readyTimeoutMs,
  );
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const signIn = await signInInstructions(gatewayUrl, owner).catch((error: unknown) => [
    `the owner's sign-in could not be checked: ${String(error)}`,
  ]);
  for (const line of signIn) say(line);
  if (mail) say(`mail: every mail is caught, shown here as [mail], and readable at ${mail.pageUrl}`);
  say(`API reference: ${gatewayUrl}/api/v2/docs`);
  say(`validation app: ${gatewayUrl}/app/`);
  say(
    `mail intake: smtp://127.0.0.1:${intakeSmtpPort(layout)} (domain ${process.env.INTAKE_MAIL_DOMAIN ?? "docex.test"}); a queue's address: npm run --silent inbox -- <queue>`,
  );
  say(`docex is ready: http://127.0.0.1:${gatewayPort}/api/v2 (Ctrl-C stops everything)`);
}

main().catch((error: unknown) => {
  say(`could not start: ${error instanceof Error ? error.message : String(error)}`);
  void stopAll(1);
});
