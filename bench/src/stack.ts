/**
 * The whole stack under a mixed workload, through the gateway: the stack runs as `npm start` runs it
 * (scripts/dist/start.js: every service and the gateway a child process) on this machine's Postgres and NATS,
 * in a namespace of its own. Offered rates rise step by step, open loop (requests are sent when due, whether or
 * not earlier ones answered, and latency counts from when a request was due), until annotation edits' p99
 * reaches 200 ms, a request fails, or (with validation on) the validator misses more than 1 % of the edits (its
 * breaker opened). Reported: the highest rate that kept all three, and each process's CPU and RSS there, read from
 * /proc, with the CPU time per request; and each process's RSS 30 s after start, idle, with the CPU it used over the
 * idle seconds before (timers and polls: what a stack costs when nobody uses it). The databases are migrated first
 * (STACK_MIGRATE_FIRST), as deploy/k8s's init containers do, so the idle figures are those of serving processes.
 *
 * The mix: reads of documents, annotation edits (PATCH) with a document_validation link to a validator that
 * answers after 20 ms, status changes with a webhook attached, and register item reads. Parts the stack does
 * not offer yet (validation on PATCH, the register service) are detected, left out, and said so in the report.
 *
 *   node dist/stack.js        prints a markdown section
 *
 * BENCH_STACK_CPU_PROF=<dir>: every process runs with --cpu-prof; its profile is <dir>/<process>.cpuprofile at the end
 * (summarise them with dist/profile-summary.js).
 * BENCH_STACK_TRACING=1: every process exports its traces (OTLP/protobuf, every request traced) to a sink in this
 * process; unset, tracing is off (no OTEL_EXPORTER_OTLP_ENDPOINT), as the stack runs by default.
 * BENCH_STACK_RATES (requests/s offered, "20,40,60,80,100,125,150,200,250,300,400"), BENCH_STACK_STEP_SECONDS (12),
 * BENCH_STACK_SECONDS (210: the whole run, start-up and the idle 30 s included, stops by itself within about this).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { EventBus } from "@docex/kit/bus";
import { SERVICE_NAMES, SERVICE_PORTS } from "@docex/kit/config";
import { databaseUrl } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import { dropDatabase, testDatabaseServerUrl, testNatsUrl } from "@docex/testkit";
import { jetstreamManager } from "@nats-io/jetstream";
import pg from "pg";
import { Pool } from "undici";
import { OtlpSink } from "./otlp-sink.js";

const RATES = (process.env.BENCH_STACK_RATES ?? "20,40,60,80,100,125,150,200,250,300,400").split(",").map(Number);
const STEP_SECONDS = Number(process.env.BENCH_STACK_STEP_SECONDS ?? 12);
const TOTAL_SECONDS = Number(process.env.BENCH_STACK_SECONDS ?? 210);
const WARM_UP_SECONDS = 4;
/** With a directory: every process of the stack runs with --cpu-prof there; profiles are renamed after their process. */
const CPU_PROFILE_DIR = process.env.BENCH_STACK_CPU_PROF;
const TRACING = process.env.BENCH_STACK_TRACING === "1";
/** RSS is read this long after the stack started, before any request. */
const IDLE_SECONDS = 30;
/** The idle CPU is measured over this many seconds before the RSS is read (start-up work is over by then). */
const IDLE_CPU_SECONDS = 15;
const EDIT_P99_LIMIT_MS = 200;
const VALIDATOR_DELAY_MS = 20;
const DOCUMENTS = 100;
const STATUS_DOCUMENTS = 60;
const REGISTER_ITEMS = 5_000;
const REQUEST_TIMEOUT_MS = 10_000;
const MAX_OUTSTANDING = 2_000;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const startedAt = performance.now();
const secondsLeft = () => TOTAL_SECONDS - (performance.now() - startedAt) / 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const say = (message: string) => process.stderr.write(`[bench stack] ${message}\n`);

type Kind = "read" | "edit" | "status" | "register";
const KINDS: Kind[] = ["read", "edit", "status", "register"];
const LABEL: Record<Kind, string> = {
  read: "GET /documents/{id}",
  edit: "PATCH /documents/{id}/annotations",
  status: "POST /documents/{id}/status",
  register: "GET /registers/{id}/items",
};

// ---------------------------------------------------------------------------------------------------------------
// The stack: scripts/dist/start.js in its own process group, so that nothing it started outlives the benchmark.

interface RunningStack {
  process: ChildProcess;
  namespace: string;
  gateway: string;
  owner: { email: string; password: string };
  output: () => string;
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createTcpServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A STACK_PORT_OFFSET whose ports are all free, away from `npm start` (0), the test stacks (19,000 to 21,000) and ephemeral ports. */
async function freePortOffset(): Promise<number> {
  const ports = Object.values(SERVICE_PORTS)
    .flatMap(({ http, grpc }) => [http, grpc])
    .filter((port) => port > 0);
  for (let attempt = 0; attempt < 40; attempt++) {
    const offset = 10_000 + 100 * Math.floor(Math.random() * 80);
    if ((await Promise.all(ports.map((port) => portIsFree(port + offset)))).every(Boolean)) return offset;
  }
  throw new Error("no free STACK_PORT_OFFSET found");
}

async function startStack(traces: OtlpSink | undefined): Promise<RunningStack> {
  const namespace = `docex_bench_${randomBytes(3).toString("hex")}`;
  const offset = await freePortOffset();
  const owner = { email: `owner-${namespace}@example.test`, password: "benchmark owner password" };
  const child = spawn(process.execPath, [path.join(root, "scripts/dist/start.js")], {
    env: {
      ...process.env,
      STACK_PORT_OFFSET: String(offset),
      STACK_NAMESPACE: namespace,
      // As deploy/k8s: migrated by processes of their own first, so that the idle RSS is a serving process's.
      STACK_MIGRATE_FIRST: "true",
      LOG_LEVEL: "warn",
      BOOTSTRAP_OWNER_EMAIL: owner.email,
      BOOTSTRAP_OWNER_PASSWORD: owner.password,
      GATEWAY_RATE_LIMIT_PER_MINUTE: "0",
      OTEL_EXPORTER_OTLP_ENDPOINT: traces?.url ?? "",
      ...(CPU_PROFILE_DIR
        ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --cpu-prof --cpu-prof-dir=${path.resolve(CPU_PROFILE_DIR)}`.trim() }
        : {}),
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  for (const stream of [child.stdout, child.stderr])
    stream?.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-50_000)));
  const stack = {
    process: child,
    namespace,
    gateway: `http://127.0.0.1:${SERVICE_PORTS.gateway.http + offset}`,
    owner,
    output: () => output,
  };
  const deadline = performance.now() + 150_000;
  while (!output.includes("docex is ready")) {
    if (performance.now() > deadline || child.exitCode !== null) {
      await stopStack(stack);
      throw new Error(`the stack did not become ready:\n${output.slice(-3_000)}`);
    }
    await sleep(250);
  }
  return stack;
}

async function stopStack(stack: RunningStack): Promise<void> {
  const group = stack.process.pid!;
  const exited = new Promise<void>((resolve) =>
    stack.process.exitCode === null ? stack.process.once("exit", () => resolve()) : resolve(),
  );
  stack.process.kill("SIGINT");
  await Promise.race([exited, sleep(40_000)]);
  try {
    process.kill(-group, "SIGKILL");
  } catch {}
  await Promise.all(SERVICE_NAMES.map((name) => dropDatabase(`${stack.namespace}_${name}`).catch(() => undefined)));
  const stream = stack.namespace.toUpperCase();
  const bus = await EventBus.connect({
    url: testNatsUrl(),
    name: "bench-stack-cleanup",
    logger: createLogger("bench", "warn"),
    namespace: { stream, subjectPrefix: stack.namespace },
  }).catch(() => undefined);
  if (!bus) return;
  try {
    const jsm = await jetstreamManager(bus.connection);
    for (const name of [stream, `${stream}_DLQ`]) await jsm.streams.delete(name).catch(() => undefined);
  } finally {
    await bus.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The processes' CPU and memory, from /proc.

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** The stack's processes (children of start.js), by name: services/<name>/dist/main.js or gateway/dist/main.js. */
function stackProcesses(startPid: number): Map<string, number> {
  const found = new Map<string, number>();
  for (const task of readdirSync(`/proc/${startPid}/task`)) {
    const children = readFileSync(`/proc/${startPid}/task/${task}/children`, "utf8").trim();
    for (const pid of children ? children.split(/\s+/).map(Number) : []) {
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      const name = /(?:services\/([a-z]+)|(gateway))\/dist\/main\.js/.exec(commandLine);
      if (name) found.set(name[1] ?? name[2]!, pid);
    }
  }
  return found;
}

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/**
 * The CPU seconds the stack's Postgres backends spend from `start` until `stop`, read every 250 ms: backends that
 * close during the step (a pool lets an idle connection go) count up to their last reading, and backends opened
 * during it count whole. Reading only at the step's two ends missed both.
 */
function postgresCpuMeter(client: pg.Client, namespace: string) {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  let reading: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const read = (initial: boolean) => {
    reading = reading.then(async () => {
      for (const [pid, seconds] of await postgresCpuOf(client, namespace).catch(() => new Map<number, number>())) {
        if (!first.has(pid)) first.set(pid, initial ? seconds : 0);
        last.set(pid, seconds);
      }
    });
    return reading;
  };
  return {
    async start() {
      await read(true);
      timer = setInterval(() => void read(false), 250);
    },
    /** CPU seconds spent since `start`, and how many backends took part. */
    async stop(): Promise<{ seconds: number; backends: number }> {
      clearInterval(timer);
      await read(false);
      let seconds = 0;
      for (const [pid, at] of last) seconds += at - (first.get(pid) ?? at);
      return { seconds, backends: last.size };
    },
  };
}

/**
 * CPU seconds used so far by the Postgres backends serving the stack's databases (the server is shared, so only
 * these count), by backend pid; backends that are not processes on this machine are left out.
 */
async function postgresCpuOf(client: pg.Client, namespace: string): Promise<Map<number, number>> {
  const { rows } = await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = ANY($1::text[])", [
    SERVICE_NAMES.map((name) => `${namespace}_${name}`),
  ]);
  const usage = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      usage.set(pid, cpuSeconds(pid));
    } catch {}
  }
  return usage;
}

// ---------------------------------------------------------------------------------------------------------------
// Local receivers: the webhook's and the 20 ms validator.

interface Receivers {
  webhookUrl: string;
  validatorUrl: string;
  deliveries: () => number;
  badSignatures: () => number;
  validations: () => number;
  setKey(key: string): void;
  stop(): Promise<void>;
}

async function startReceivers(): Promise<Receivers> {
  let key = "";
  let deliveries = 0;
  let badSignatures = 0;
  let validations = 0;
  const sign = (body: string) => createHmac("sha256", Buffer.from(key, "utf8")).update(body).digest("hex");
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      if (req.url?.startsWith("/validate")) {
        validations++;
        const answer = JSON.stringify({ results: [] });
        setTimeout(
          () => res.writeHead(200, { "content-type": "application/json", "x-service-signature": sign(answer) }).end(answer),
          VALIDATOR_DELAY_MS,
        );
        return;
      }
      deliveries++;
      if (req.headers["x-service-signature"] !== sign(raw)) badSignatures++;
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    webhookUrl: `${base}/events`,
    validatorUrl: `${base}/validate`,
    deliveries: () => deliveries,
    badSignatures: () => badSignatures,
    validations: () => validations,
    setKey: (value) => {
      key = value;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The API through the gateway.

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the benchmark reads a few fields of each answer
  body: any;
}

class Api {
  token = "";
  constructor(readonly pool: Pool) {}

  async call(method: "GET" | "POST" | "PATCH", apiPath: string, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await this.pool.request({
      method,
      path: `/api/v2${apiPath}`,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
    });
    const text = await response.body.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: response.statusCode, body: parsed };
  }

  async expect(status: number, method: "GET" | "POST" | "PATCH", apiPath: string, body?: unknown): Promise<Answer> {
    const answer = await this.call(method, apiPath, body);
    if (answer.status !== status) throw new Error(`${method} ${apiPath}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 500)}`);
    return answer;
  }
}

async function inBatches<T>(count: number, concurrency: number, make: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await make(index);
      }
    }),
  );
  return results;
}

interface Workload {
  queueId: string;
  documents: string[];
  /** Documents free for a status change, each with the status it is in; one request per document at a time. */
  idle: Array<{ id: string; status: string }>;
  registerId: string | undefined;
  validation: string;
  register: string;
}

async function prepare(api: Api, stack: RunningStack, receivers: Receivers): Promise<Workload> {
  api.token = (await api.expect(200, "POST", "/auth/login", stack.owner)).body.data.access_token;
  let organizationId = "";
  for (let attempt = 0; attempt < 80 && !organizationId; attempt++) {
    const organizations = await api.call("GET", "/organizations");
    organizationId =
      organizations.body?.data?.find((candidate: { humanized_id: string }) => candidate.humanized_id === "bootstrap")?.id ?? "";
    if (!organizationId) await sleep(250);
  }
  if (!organizationId) throw new Error("the bootstrap organization did not appear");
  const workspace = await api.expect(201, "POST", "/workspaces", { organization_id: organizationId, name: "Bench" });
  const queue = await api.expect(201, "POST", "/queues", { workspace_id: workspace.body.data.id, name: "Bench inbox" });
  const queueId: string = queue.body.data.id;
  receivers.setKey((await api.expect(201, "POST", `/organizations/${organizationId}/webhook-signing-key`)).body.data.key);
  await api.expect(201, "POST", "/webhooks", {
    url: receivers.webhookUrl,
    entity_type: "queue",
    entity_id: queueId,
    signature_verification: "enabled",
  });

  const upload = async (index: number) => {
    const document = await api.expect(201, "POST", `/queues/${queueId}/documents`, { file_name: `bench-${index}.pdf` });
    const id: string = document.body.data.id;
    await api.expect(200, "POST", `/documents/${id}/extraction`, {
      annotations: [
        { key: "invoice_id", value: `INV-${index}` },
        { key: "total_due", value: "100.00" },
      ],
      confidence: 90,
    });
    return id;
  };
  const documents = await inBatches(DOCUMENTS, 8, upload);
  const idle = (await inBatches(STATUS_DOCUMENTS, 8, (index) => upload(DOCUMENTS + index))).map((id) => ({ id, status: "to_validate" }));

  // The validator: is the link accepted, and does a PATCH call it?
  let validation: string;
  const link = await api.call("POST", `/queues/${queueId}/external-validation-links`, {
    url: receivers.validatorUrl,
    type: "document_validation",
    signature_verification: "enabled",
  });
  if (link.status !== 201 && link.status !== 200) {
    validation = `not attached: the validation link was refused (${link.status}); edits ran without a validator`;
  } else {
    const before = receivers.validations();
    await api.expect(200, "PATCH", `/documents/${documents[0]}/annotations`, { annotations: [{ key: "total_due", value: "101.00" }] });
    for (let waited = 0; waited < 2_000 && receivers.validations() === before; waited += 50) await sleep(50);
    validation =
      receivers.validations() > before
        ? `on: each PATCH calls the queue's document_validation link, a local validator answering after ${VALIDATOR_DELAY_MS} ms (signed)`
        : "off: the link was accepted but PATCH does not call it yet (validation wiring unfinished); edits ran without a validator";
  }

  // The register: does the service answer an upload and a read?
  let registerId: string | undefined;
  let register: string;
  const items = Array.from({ length: REGISTER_ITEMS }, (_, index) => ({
    value: `S${String(index).padStart(6, "0")}`,
    label: `Supplier ${index} s.r.o.`,
    register_id: String(10_000_000 + index),
  }));
  const uploaded = await api
    .call("POST", "/registers", [{ queue_id: queueId, method: "replace", name: "Suppliers", items }])
    .catch(() => undefined);
  if (uploaded?.status === 201) {
    registerId = uploaded.body.data[0].id;
    const probe = await api.call("GET", `/registers/${registerId}/items?page=1`);
    register =
      probe.status === 200
        ? `on: a register of ${REGISTER_ITEMS} items, random pages of 20 and searches`
        : `off: reading answered ${probe.status}`;
    if (probe.status !== 200) registerId = undefined;
  } else {
    register = `off: the register service did not take an upload (${uploaded?.status ?? "no answer"}); its share went to reads`;
  }
  return { queueId, documents, idle, registerId, validation, register };
}

// ---------------------------------------------------------------------------------------------------------------
// Open-loop steps.

interface KindResult {
  /** Requests sent (or due and refused by the client). */
  count: number;
  /** Answered with a 2xx. */
  ok: number;
  errors: number;
  p50: number;
  p99: number;
}

interface Step {
  offered: number;
  achieved: number;
  kinds: Record<Kind, KindResult>;
  errors: number;
  errorSamples: string[];
  processes: Array<{ name: string; cpuPercent: number; rssMiB: number }>;
  /** CPU of every process of the stack and its Postgres backends, per completed request. */
  cpuMsPerRequest: number;
  /** Calls the validator received during the step: fewer than the edits when its breaker was open for a while. */
  validatorCalls: number;
  /** This process (load, validator, webhook receiver): its event loop's delay p99 in ms and its CPU, % of one core. */
  harness: { loopDelayP99Ms: number; cpuPercent: number };
  passed: boolean;
}

function mixOf(workload: Workload): Array<[Kind, number]> {
  return workload.registerId
    ? [
        ["read", 0.4],
        ["edit", 0.3],
        ["status", 0.15],
        ["register", 0.15],
      ]
    : [
        ["read", 0.55],
        ["edit", 0.3],
        ["status", 0.15],
      ];
}

/** The kind whose share of the mix `draw` (0..1) falls in. */
function kindFor(mix: Array<[Kind, number]>, draw: number): Kind {
  let below = 0;
  for (const [kind, share] of mix) {
    below += share;
    if (draw < below) return kind;
  }
  return mix[0]![0];
}

/** The share of a step's edits the validator must have been called for (when validation is on) for the step to pass. */
const VALIDATED_SHARE = 0.99;

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

interface Probes {
  pids: Map<string, number>;
  postgres: pg.Client;
  namespace: string;
  /** The validator's calls so far. */
  validations: () => number;
}

async function runStep(api: Api, workload: Workload, rate: number, seconds: number, probes: Probes): Promise<Step> {
  const { pids } = probes;
  const mix = mixOf(workload);
  const latencies: Record<Kind, number[]> = { read: [], edit: [], status: [], register: [] };
  const errors: Record<Kind, number> = { read: 0, edit: 0, status: 0, register: 0 };
  const issued: Record<Kind, number> = { read: 0, edit: 0, status: 0, register: 0 };
  const ok: Record<Kind, number> = { read: 0, edit: 0, status: 0, register: 0 };
  const errorSamples: string[] = [];
  let outstanding = 0;
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;
  const fail = (kind: Kind, why: string) => {
    errors[kind]++;
    if (errorSamples.length < 5) errorSamples.push(`${kind}: ${why}`);
  };

  const send = async (kind: Kind, dueAt: number) => {
    let answer: Answer;
    let statusDocument: { id: string; status: string } | undefined;
    try {
      if (kind === "read") answer = await api.call("GET", `/documents/${pick(workload.documents)}`);
      else if (kind === "edit") {
        const value = (100 + Math.random() * 900).toFixed(2);
        answer = await api.call("PATCH", `/documents/${pick(workload.documents)}/annotations`, {
          annotations: [{ key: "total_due", value }],
        });
      } else if (kind === "status") {
        statusDocument = workload.idle.pop();
        if (!statusDocument) return fail(kind, "no document free for a status change");
        const target = statusDocument.status === "to_validate" ? "postponed" : "to_validate";
        answer = await api.call("POST", `/documents/${statusDocument.id}/status`, { status: target });
        if (answer.status === 200) statusDocument.status = target;
      } else {
        const query =
          Math.random() < 0.5
            ? `page=${1 + Math.floor(Math.random() * (REGISTER_ITEMS / 20))}`
            : `q=S${String(Math.floor(Math.random() * REGISTER_ITEMS)).padStart(6, "0")}`;
        answer = await api.call("GET", `/registers/${workload.registerId}/items?${query}`);
      }
    } catch (error) {
      return fail(kind, error instanceof Error ? error.message : String(error));
    } finally {
      if (statusDocument) workload.idle.push(statusDocument);
      outstanding--;
    }
    latencies[kind].push(performance.now() - dueAt);
    if (answer.status >= 300) fail(kind, `${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
    else ok[kind]++;
  };

  const cpuBefore = new Map([...pids].map(([name, pid]) => [name, cpuSeconds(pid)]));
  const validationsBefore = probes.validations();
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  const harnessCpu = process.cpuUsage();
  const postgresMeter = postgresCpuMeter(probes.postgres, probes.namespace);
  await postgresMeter.start();
  const started = performance.now();
  const total = Math.round(rate * seconds);
  const inFlight: Array<Promise<void>> = [];
  for (let index = 0; index < total; index++) {
    const dueAt = started + (index * 1000) / rate;
    const wait = dueAt - performance.now();
    if (wait > 1) await sleep(wait);
    const kind = kindFor(mix, Math.random());
    issued[kind]++;
    if (outstanding >= MAX_OUTSTANDING) {
      fail(kind, `more than ${MAX_OUTSTANDING} requests outstanding`);
      continue;
    }
    outstanding++;
    inFlight.push(send(kind, dueAt));
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  loopDelay.disable();
  const harnessUsed = process.cpuUsage(harnessCpu);
  const processes = [...pids].map(([name, pid]) => ({
    name,
    cpuPercent: ((cpuSeconds(pid) - cpuBefore.get(name)!) / elapsed) * 100,
    rssMiB: rssMiB(pid),
  }));
  const postgres = await postgresMeter.stop();
  const postgresSeconds = postgres.seconds;
  processes.push({
    name: `postgres (${postgres.backends} backends of the stack's databases)`,
    cpuPercent: (postgresSeconds / elapsed) * 100,
    rssMiB: Number.NaN,
  });
  const kinds = Object.fromEntries(
    KINDS.map((kind) => {
      const sorted = latencies[kind].sort((a, b) => a - b);
      return [kind, { count: issued[kind], ok: ok[kind], errors: errors[kind], p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) }];
    }),
  ) as Record<Kind, KindResult>;
  const errorCount = KINDS.reduce((sum, kind) => sum + errors[kind], 0);
  const validatorCalls = probes.validations() - validationsBefore;
  const completed = KINDS.reduce((sum, kind) => sum + latencies[kind].length, 0);
  return {
    offered: rate,
    achieved: completed / elapsed,
    kinds,
    errors: errorCount,
    errorSamples,
    processes,
    cpuMsPerRequest: completed > 0 ? (processes.reduce((sum, entry) => sum + entry.cpuPercent, 0) * elapsed * 10) / completed : Number.NaN,
    validatorCalls,
    harness: {
      loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      cpuPercent: ((harnessUsed.user + harnessUsed.system) / 1e6 / elapsed) * 100,
    },
    // With the validator's breaker open, edits skip the validator and cost less: such a step does not pass.
    passed:
      errorCount === 0 &&
      kinds.edit.p99 < EDIT_P99_LIMIT_MS &&
      (!workload.validation.startsWith("on") || validatorCalls >= kinds.edit.ok * VALIDATED_SHARE),
  };
}

// ---------------------------------------------------------------------------------------------------------------

/** What a process costs with nothing to do: its RSS at the end, and the CPU it used over the idle seconds before. */
interface Idle {
  rssMiB: Map<string, number>;
  /** % of one core, by process, with the stack's Postgres backends as `postgres`. */
  cpuPercent: Map<string, number>;
  seconds: number;
}

/**
 * Waits until IDLE_SECONDS after the start, measuring each process's CPU over the last IDLE_CPU_SECONDS of it (at
 * least that long, if the stack was slow to start), then reads the RSS.
 */
async function measureIdle(probes: Probes, startedAt: number): Promise<Idle> {
  const { pids } = probes;
  await sleep(Math.max(0, (IDLE_SECONDS - IDLE_CPU_SECONDS) * 1000 - (performance.now() - startedAt)));
  const before = new Map([...pids].map(([name, pid]) => [name, cpuSeconds(pid)]));
  const postgresMeter = postgresCpuMeter(probes.postgres, probes.namespace);
  await postgresMeter.start();
  const measuredFrom = performance.now();
  await sleep(Math.max(IDLE_CPU_SECONDS * 1000, IDLE_SECONDS * 1000 - (measuredFrom - startedAt)));
  const seconds = (performance.now() - measuredFrom) / 1000;
  const cpuPercent = new Map([...pids].map(([name, pid]) => [name, ((cpuSeconds(pid) - before.get(name)!) / seconds) * 100]));
  cpuPercent.set("postgres", ((await postgresMeter.stop()).seconds / seconds) * 100);
  return { rssMiB: new Map([...pids].map(([name, pid]) => [name, rssMiB(pid)])), cpuPercent, seconds };
}

function printReport(
  steps: Step[],
  workload: Workload,
  receivers: Receivers,
  statusChanges: number,
  load: { start: number; end: number },
  idle: Idle,
  traces: OtlpSink | undefined,
): void {
  const best = [...steps].reverse().find((step) => step.passed);
  const ms = (value: number) => (Number.isNaN(value) ? "–" : value.toFixed(1));
  const active = KINDS.filter((kind) => kind !== "register" || workload.registerId);
  const mix = mixOf(workload)
    .map(([kind, share]) => `${Math.round(share * 100)} % ${LABEL[kind]}`)
    .join(", ");
  const lines = [
    traces ? "## stack (tracing on)" : "## stack",
    "",
    "The whole stack as `npm start` runs it (every service and the gateway a child process of scripts/dist/start.js) on this machine's",
    `Postgres and NATS, in a namespace of its own; load from undici in the benchmark process through the gateway, open loop (latency counts`,
    `from when a request was due). Mix: ${mix}. Steps of ${STEP_SECONDS} s at rising offered rates after a ${WARM_UP_SECONDS} s warm-up;`,
    `a step passes when edits' p99 is under ${EDIT_P99_LIMIT_MS} ms, no request failed and (with validation on) the validator had a call for at least ${VALIDATED_SHARE * 100} % of the edits; a failed step runs once more before the ramp ends. Node ${process.version}, ${cpus().length} CPUs;`,
    `load average (1 min) ${load.start.toFixed(1)} at the start, ${load.end.toFixed(1)} at the end (other work shares this machine).`,
    "",
    `| offered req/s | achieved req/s | CPU ms / request | ${active.map((kind) => `${kind} p50 / p99 ms`).join(" | ")} | validator calls / edits | harness loop delay p99 ms / CPU % | errors | passed |`,
    `|---:|---:|---:|${active.map(() => "---:|").join("")}---:|---:|---:|---|`,
    ...steps.map(
      (step) =>
        `| ${step.offered} | ${step.achieved.toFixed(0)} | ${ms(step.cpuMsPerRequest)} | ${active.map((kind) => `${ms(step.kinds[kind].p50)} / ${ms(step.kinds[kind].p99)}`).join(" | ")} | ${step.validatorCalls} / ${step.kinds.edit.ok} | ${ms(step.harness.loopDelayP99Ms)} / ${step.harness.cpuPercent.toFixed(0)} | ${step.errors} | ${step.passed ? "yes" : "**no**"} |`,
    ),
    "",
    best
      ? `- highest offered rate with edits' p99 under ${EDIT_P99_LIMIT_MS} ms, no errors and the edits validated: **${best.offered} req/s** (edits p99 ${ms(best.kinds.edit.p99)} ms; ${best.kinds.edit.ok} edits, ${best.validatorCalls} validator calls, ${best.kinds.status.ok} status changes in ${STEP_SECONDS} s; ${ms(best.cpuMsPerRequest)} ms of CPU per request)`
      : `- no step kept edits' p99 under ${EDIT_P99_LIMIT_MS} ms without errors, with its edits validated`,
    `- idle, ${IDLE_SECONDS} s after the start with nothing asked of it: the stack uses **${[...idle.cpuPercent.values()].reduce((sum, percent) => sum + percent, 0).toFixed(1)} % of one core** (its Postgres backends included) and ${[...idle.rssMiB.values()].reduce((sum, mib) => sum + mib, 0).toFixed(0)} MiB (table below)`,
    "- validator calls / edits: the calls the validator received during the step, against the edits answered 200; fewer when its breaker opened (validations timed out under load), and then edits cost less and answer sooner, so compare steps with the same share",
    "- harness: this process, which sends the load and runs the validator and the webhook receiver; a loop delay near the latencies means the figures measure the harness, not the stack",
    `- CPU ms / request: the CPU time of every process of the stack and of its Postgres backends (from /proc; the backends read every 250 ms, so that those opened or closed during the step count too) during the step, divided by the requests completed in it`,
    traces
      ? `- tracing: on, every request traced, OTLP/protobuf to a local sink (${traces.requests} exports, ${(traces.bytes / 1024 / 1024).toFixed(1)} MiB)`
      : "- tracing: off (no OTEL_EXPORTER_OTLP_ENDPOINT; every process started with the tracing register, as always)",
    `- validation on PATCH: ${workload.validation}`,
    `- register reads: ${workload.register}`,
    `- webhook on the queue (signed): ${receivers.deliveries()} deliveries received for ${statusChanges} status changes made (uploads' extractions and warm-up included); bad signatures ${receivers.badSignatures()}; validator calls ${receivers.validations()}`,
    ...steps
      .filter((step) => step.errorSamples.length > 0)
      .map((step) => `- errors at ${step.offered} req/s, e.g.: ${step.errorSamples.join("; ")}`),
  ];
  if (best) {
    lines.push(
      "",
      `| process (at ${best.offered} req/s) | CPU % of one core | RSS MiB |`,
      "|---|---:|---:|",
      ...best.processes.map(
        (entry) => `| ${entry.name} | ${entry.cpuPercent.toFixed(0)} | ${Number.isNaN(entry.rssMiB) ? "–" : entry.rssMiB.toFixed(0)} |`,
      ),
      `| all | ${best.processes.reduce((sum, entry) => sum + entry.cpuPercent, 0).toFixed(0)} | ${best.processes
        .filter((entry) => !Number.isNaN(entry.rssMiB))
        .reduce((sum, entry) => sum + entry.rssMiB, 0)
        .toFixed(0)} (processes of the stack) |`,
      "",
      "NATS and the Postgres server's shared processes serve other work on this machine as well and are not counted.",
    );
  }
  const idleCpu = (name: string) => idle.cpuPercent.get(name)?.toFixed(2) ?? "–";
  lines.push(
    "",
    `| process, idle ${IDLE_SECONDS} s after the stack started (nothing asked of it yet) | RSS MiB | CPU % of one core, over the ${idle.seconds.toFixed(0)} s before |`,
    "|---|---:|---:|",
    ...[...idle.rssMiB].map(([name, mib]) => `| ${name} | ${mib.toFixed(0)} | ${idleCpu(name)} |`),
    `| postgres (the stack's backends) | – | ${idleCpu("postgres")} |`,
    `| all | ${[...idle.rssMiB.values()].reduce((sum, mib) => sum + mib, 0).toFixed(0)} | ${[...idle.cpuPercent.values()].reduce((sum, percent) => sum + percent, 0).toFixed(2)} |`,
  );
  process.stdout.write(`${lines.join("\n")}\n`);
}

async function main(): Promise<void> {
  const load = { start: loadavg()[0]!, end: 0 };
  const receivers = await startReceivers();
  say("starting the stack");
  const startedAt = performance.now();
  const traces = TRACING ? await OtlpSink.start() : undefined;
  const stack = await startStack(traces);
  // Whatever happens below, the stack does not outlive the time the benchmark promised.
  const watchdog = setTimeout(
    () => {
      say("out of time; stopping");
      try {
        process.kill(-stack.process.pid!, "SIGKILL");
      } catch {}
      process.exit(1);
    },
    (TOTAL_SECONDS + 90) * 1000,
  );
  watchdog.unref();
  const pool = new Pool(stack.gateway, { connections: 128 });
  const postgres = new pg.Client({ connectionString: databaseUrl(testDatabaseServerUrl(), "postgres") });
  let pids: Map<string, number> | undefined;
  try {
    await postgres.connect();
    const api = new Api(pool);
    pids = stackProcesses(stack.process.pid!);
    const probes: Probes = { pids, postgres, namespace: stack.namespace, validations: () => receivers.validations() };
    say(`stack ready (${[...pids.keys()].join(", ")}); idle until ${IDLE_SECONDS} s after the start`);
    const idle = await measureIdle(probes, startedAt);
    say("preparing");
    const workload = await prepare(api, stack, receivers);
    say(`validation ${workload.validation.split(":")[0]}, register ${workload.register.split(":")[0]}`);
    // Every extraction moved a document received → to_validate: a delivery each.
    let statusChanges = DOCUMENTS + STATUS_DOCUMENTS;
    statusChanges += (await runStep(api, workload, RATES[0]!, WARM_UP_SECONDS, probes)).kinds.status.ok;
    const steps: Step[] = [];
    ramp: for (const rate of RATES) {
      // A failed step is run once more: a pause of the shared machine should not end the ramp by itself.
      for (let attempt = 1; attempt <= 2; attempt++) {
        if (secondsLeft() < STEP_SECONDS + 5) {
          say(`out of time before ${rate} req/s`);
          break ramp;
        }
        const step = await runStep(api, workload, rate, STEP_SECONDS, probes);
        steps.push(step);
        statusChanges += step.kinds.status.ok;
        say(`${rate} req/s: achieved ${step.achieved.toFixed(0)}, edits p99 ${step.kinds.edit.p99.toFixed(1)} ms, errors ${step.errors}`);
        if (step.passed) continue ramp;
      }
      break;
    }
    // Deliveries of the last step's changes are still on their way; give them a moment.
    for (let waited = 0; waited < 10_000 && receivers.deliveries() < statusChanges; waited += 250) await sleep(250);
    load.end = loadavg()[0]!;
    printReport(steps, workload, receivers, statusChanges, load, idle, traces);
  } finally {
    clearTimeout(watchdog);
    await pool.close();
    await postgres.end().catch(() => undefined);
    await stopStack(stack);
    await receivers.stop();
    await traces?.stop();
    if (CPU_PROFILE_DIR && pids) nameProfiles(CPU_PROFILE_DIR, pids);
  }
}

/** V8 names a profile CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile: keep the stack's, named after their process. */
function nameProfiles(directory: string, pids: Map<string, number>): void {
  const names = new Map([...pids].map(([name, pid]) => [pid, name]));
  for (const file of readdirSync(directory).filter((entry) => /^CPU\..*\.cpuprofile$/.test(entry))) {
    const name = names.get(Number(file.split(".")[3]));
    if (name) renameSync(path.join(directory, file), path.join(directory, `${name}.cpuprofile`));
    else rmSync(path.join(directory, file));
  }
}

await main();
