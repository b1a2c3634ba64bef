/**
 * Webhook delivery: `document.status_changed` events published to JetStream become signed HTTP POSTs at a
 * local receiver, through the whole webhook service (durable consumer → delivery rows in Postgres → sender
 * claiming with FOR UPDATE SKIP LOCKED → undici → recorded attempts). Beside it, in the same run, a plain
 * loop of signed undici POSTs to the same receiver: the ceiling the service is compared with.
 *
 *   node dist/delivery.js                    the benchmark (prints a markdown section)
 *   node dist/delivery.js service|receiver   child roles, started by the benchmark itself
 *
 * BENCH_EVENTS (10000), BENCH_RATE (200 events/s offered), BENCH_RATE_SECONDS (10), BENCH_LOOP_CONCURRENCY (32).
 * BENCH_DELIVERY_CPU_PROF=<dir>: the service runs with --cpu-prof; its profile is <dir>/webhook.cpuprofile at the end
 * (summarise with `node dist/profile-summary.js <dir>`).
 * Needs Postgres and NATS (DATABASE_URL, NATS_URL as the tests); uses its own database and JetStream stream
 * and removes both at the end. Membership and the document service are played by gRPC doubles: delivery
 * does not call them, only the two set-up requests do.
 */
import { type ChildProcess, fork } from "node:child_process";
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { readdirSync, renameSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createEvent, eventSubject } from "@docex/events";
import { EventBus } from "@docex/kit/bus";
import { NotFoundError } from "@docex/kit/errors";
import { ANY_SERVICE, GrpcServer } from "@docex/kit/grpc";
import { createLogger } from "@docex/kit/logger";
import { type DocumentHandlers, documentService, type MembershipHandlers, membershipService } from "@docex/protos";
import { dropDatabase, TestIssuer, testDatabaseServerUrl, testGrpcIdentity, testGrpcTlsDir, testNatsUrl } from "@docex/testkit";
import { configSchema, startWebhookService } from "@docex/webhook";
import { jetstreamManager } from "@nats-io/jetstream";
import { Pool } from "undici";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const RATE_SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 10);
const LOOP_CONCURRENCY = Number(process.env.BENCH_LOOP_CONCURRENCY ?? 32);
const WARM_UP = 300;
const CPU_PROFILE_DIR = process.env.BENCH_DELIVERY_CPU_PROF;

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes on one machine. */
const clock = () => performance.timeOrigin + performance.now();

interface Receipt {
  documentId: string;
  deliveryId: string;
  at: number;
  signatureOk: boolean;
}

type ChildMessage = { port: number } | { receipts: Receipt[] } | { cpuMicros: number; systemMicros: number };

// ---------------------------------------------------------------------------------------------------------------
// Child: the receiver. Answers 200 at once, checks each signature, and reports receipts in batches.

async function runReceiver(): Promise<void> {
  let key = "";
  let pending: Receipt[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const at = clock();
      const raw = Buffer.concat(chunks);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
      if (req.url?.startsWith("/plain")) return;
      const signature = req.headers["x-service-signature"];
      const expected = key ? createHmac("sha256", Buffer.from(key, "utf8")).update(raw).digest("hex") : "";
      const body = JSON.parse(raw.toString("utf8")) as { document_id: string };
      pending.push({
        documentId: body.document_id,
        deliveryId: String(req.headers["x-service-delivery-id"]),
        at,
        signatureOk: signature === expected,
      });
    });
  });
  server.keepAliveTimeout = 30_000;
  setInterval(() => {
    if (pending.length === 0) return;
    process.send?.({ receipts: pending } satisfies ChildMessage);
    pending = [];
  }, 10).unref();
  process.on("message", (message: { key?: string }) => {
    if (message.key) key = message.key;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.send?.({ port: (server.address() as AddressInfo).port } satisfies ChildMessage);
}

// ---------------------------------------------------------------------------------------------------------------
// Child: the webhook service, configured as in production except for its database, stream and private targets.

async function runService(): Promise<void> {
  const config = configSchema.parse(process.env);
  const running = await startWebhookService(config, { logger: createLogger("webhook", "warn") });
  process.on("message", (message) => {
    if (message === "usage") {
      const { user, system } = process.cpuUsage();
      process.send?.({ cpuMicros: user + system, systemMicros: system } satisfies ChildMessage);
    }
  });
  process.on("SIGTERM", () => {
    void running.stop().then(() => process.exit(0));
  });
  process.send?.({ port: running.httpPort } satisfies ChildMessage);
}

// ---------------------------------------------------------------------------------------------------------------
// Parent.

interface Child {
  process: ChildProcess;
  port: number;
}

function startChild(role: "service" | "receiver", env: Record<string, string> = {}): Promise<Child> {
  const profiling = role === "service" && CPU_PROFILE_DIR;
  const child = fork(fileURLToPath(import.meta.url), [role], {
    env: { ...process.env, ...env },
    execArgv: profiling ? [...process.execArgv, "--cpu-prof", `--cpu-prof-dir=${path.resolve(CPU_PROFILE_DIR)}`] : process.execArgv,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    const onMessage = (message: ChildMessage) => {
      if ("port" in message) {
        child.off("message", onMessage);
        resolve({ process: child, port: message.port });
      }
    };
    child.on("message", onMessage);
    child.once("exit", (code) => reject(new Error(`${role} exited with ${code} before it was ready`)));
  });
}

/** The child's CPU time so far (user + system) and the system part of it, in microseconds. */
function cpuOf(child: Child): Promise<{ cpuMicros: number; systemMicros: number }> {
  return new Promise((resolve) => {
    const onMessage = (message: ChildMessage) => {
      if ("cpuMicros" in message) {
        child.process.off("message", onMessage);
        resolve(message);
      }
    };
    child.process.on("message", onMessage);
    child.process.send("usage");
  });
}

/** Membership and the document service as far as the two set-up requests need them. */
async function startDoubles(
  organizationId: string,
  workspaceId: string,
  queueId: string,
): Promise<{ membership: string; documents: string; stop(): Promise<void> }> {
  const logger = createLogger("bench-doubles", "silent");
  // One server per service: each presents the certificate of the service it stands in for (mutual TLS).
  const membershipServer = new GrpcServer(logger, { identity: testGrpcIdentity("membership") });
  const documentServer = new GrpcServer(logger, { identity: testGrpcIdentity("document") });
  const notServed = async (): Promise<never> => {
    throw new NotFoundError("not served by the benchmark's double");
  };
  const membership: MembershipHandlers = {
    CheckPermission: async () => ({ allowed: true, is_member: true, role: "owner" }),
    GetRoles: async () => ({ role: "owner", queue_ids: [], all_queues: true, status: "active" }),
    CreateOrganization: notServed,
    GetUserSchema: async () => ({ fields: [] }),
    ListOrganizationsOfUser: async () => ({ organizations: [] }),
    GetOrganization: notServed,
    AcceptInvitation: notServed,
  };
  const documents: DocumentHandlers = {
    ResolveEntity: async (request) => {
      if (request.entity_type === "organization" && request.id_or_humanized === organizationId) {
        return {
          entity_type: "organization",
          id: organizationId,
          humanized_id: "bench",
          organization_id: organizationId,
          workspace_id: "",
          queue_id: "",
          document_id: "",
        };
      }
      if (request.entity_type === "queue" && request.id_or_humanized === queueId) {
        return {
          entity_type: "queue",
          id: queueId,
          humanized_id: "bench-queue",
          organization_id: organizationId,
          workspace_id: workspaceId,
          queue_id: queueId,
          document_id: "",
        };
      }
      throw new NotFoundError("no such entity");
    },
    GetQueue: notServed,
    GetDocument: notServed,
    ApplyDocumentChanges: notServed,
    ReadDocumentFile: async function* () {
      yield await notServed();
    },
    RecordExtraction: notServed,
    RecordValidationWebhook: notServed,
    HasValidationLink: notServed,
    ResolveInbox: notServed,
    ReceiveEmailDocument: notServed,
  };
  membershipServer.addService(membershipService.definition, membershipService.serviceName, membership, ANY_SERVICE);
  documentServer.addService(documentService.definition, documentService.serviceName, documents, ANY_SERVICE);
  const membershipPort = await membershipServer.listen("127.0.0.1", 0);
  const documentPort = await documentServer.listen("127.0.0.1", 0);
  return {
    membership: `127.0.0.1:${membershipPort}`,
    documents: `127.0.0.1:${documentPort}`,
    stop: async () => {
      await Promise.all([membershipServer.shutdown(1_000), documentServer.shutdown(1_000)]);
    },
  };
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

interface Phase {
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  count: number;
}

/** Waits until every document of `published` was received; event-to-receipt latencies of the first receipt of each. */
async function collect(published: Map<string, number>, receipts: Map<string, Receipt>, timeoutMs: number): Promise<Phase> {
  const deadline = Date.now() + timeoutMs;
  while ([...published.keys()].some((id) => !receipts.has(id))) {
    if (Date.now() > deadline) {
      const missing = [...published.keys()].filter((id) => !receipts.has(id)).length;
      throw new Error(`${missing} of ${published.size} events were not delivered within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const latencies: number[] = [];
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const [documentId, sentAt] of published) {
    const receipt = receipts.get(documentId)!;
    latencies.push(receipt.at - sentAt);
    first = Math.min(first, sentAt);
    last = Math.max(last, receipt.at);
  }
  latencies.sort((a, b) => a - b);
  return {
    perSecond: published.size / ((last - first) / 1000),
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: latencies[latencies.length - 1] ?? Number.NaN,
    count: published.size,
  };
}

async function runBenchmark(): Promise<void> {
  const run = randomBytes(4).toString("hex");
  const namespace = { stream: `DOCEX_BENCH_${run.toUpperCase()}`, subjectPrefix: `docex_bench_${run}` };
  const database = `docex_bench_webhook_${run}`;
  const organizationId = randomUUID();
  const workspaceId = randomUUID();
  const queueId = randomUUID();
  const issuer = await TestIssuer.start();
  const doubles = await startDoubles(organizationId, workspaceId, queueId);
  const bus = await EventBus.connect({ url: testNatsUrl(), name: "bench-delivery", logger: createLogger("bench", "warn"), namespace });
  const children: Child[] = [];
  const receipts = new Map<string, Receipt>();
  let duplicates = 0;
  let badSignatures = 0;
  let serviceProcess: ChildProcess | undefined;
  try {
    const receiver = await startChild("receiver");
    children.push(receiver);
    receiver.process.on("message", (message: ChildMessage) => {
      if (!("receipts" in message)) return;
      for (const receipt of message.receipts) {
        if (!receipt.signatureOk) badSignatures++;
        if (receipts.has(receipt.documentId)) duplicates++;
        else receipts.set(receipt.documentId, receipt);
      }
    });
    const service = await startChild("service", {
      HOST: "127.0.0.1",
      PORT: "0",
      GRPC_PORT: "0",
      LOG_LEVEL: "warn",
      DATABASE_URL: testDatabaseServerUrl(),
      DATABASE_NAME: database,
      NATS_URL: testNatsUrl(),
      NATS_STREAM: namespace.stream,
      NATS_SUBJECT_PREFIX: namespace.subjectPrefix,
      AUTH_JWKS_URL: issuer.jwksUri,
      JWT_ISSUER: issuer.issuer,
      JWT_AUDIENCE: issuer.audience,
      MEMBERSHIP_GRPC_ADDR: doubles.membership,
      DOCUMENT_GRPC_ADDR: doubles.documents,
      GRPC_TLS_DIR: testGrpcTlsDir(),
      WEBHOOK_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
    });
    children.push(service);
    serviceProcess = service.process;

    const token = issuer.mint({ sub: randomUUID() });
    const api = async (path: string, body?: unknown) => {
      const response = await fetch(`http://127.0.0.1:${service.port}/api/v2${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const answer = (await response.json()) as { data: Record<string, string> };
      if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
      return answer.data;
    };
    const { key } = await api(`/organizations/${organizationId}/webhook-signing-key`);
    receiver.process.send({ key });
    const receiverUrl = `http://127.0.0.1:${receiver.port}`;
    await api("/webhooks", { url: `${receiverUrl}/hook`, entity_type: "queue", entity_id: queueId, signature_verification: "enabled" });

    const publish = async (documentId: string, published: Map<string, number>) => {
      const event = createEvent("document.status_changed", {
        organization_id: organizationId,
        data: {
          document_id: documentId,
          queue_id: queueId,
          workspace_id: workspaceId,
          status: "ready_to_export",
          previous_status: "to_validate",
          user_id: null,
        },
      });
      published.set(documentId, clock());
      await bus.publish(eventSubject(event.type), event, { msgId: event.id });
    };
    const burst = async (count: number, timeoutMs: number) => {
      const published = new Map<string, number>();
      const ids = Array.from({ length: count }, () => randomUUID());
      const started = clock();
      for (let start = 0; start < ids.length; start += 500)
        await Promise.all(ids.slice(start, start + 500).map((id) => publish(id, published)));
      const publishedPerSecond = count / ((clock() - started) / 1000);
      return { phase: await collect(published, receipts, timeoutMs), publishedPerSecond };
    };

    await burst(WARM_UP, 30_000);
    process.stderr.write("warm-up delivered\n");

    const cpuBefore = await cpuOf(service);
    const throughput = await burst(EVENTS, 180_000);
    const cpuAfter = await cpuOf(service);
    process.stderr.write(`burst: ${throughput.phase.perSecond.toFixed(0)} deliveries/s\n`);

    const loopCpuBefore = process.cpuUsage();
    const loop = await plainLoop(receiverUrl, key!, EVENTS, LOOP_CONCURRENCY);
    const loopCpu = process.cpuUsage(loopCpuBefore);
    process.stderr.write(`plain loop: ${loop.perSecond.toFixed(0)} POSTs/s\n`);

    const paced = new Map<string, number>();
    const total = RATE * RATE_SECONDS;
    const pacedStart = clock() + 20;
    const sends: Array<Promise<void>> = [];
    for (let index = 0; index < total; index++) {
      const due = pacedStart + (index * 1000) / RATE;
      const wait = due - clock();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      sends.push(publish(randomUUID(), paced));
    }
    await Promise.all(sends);
    const offered = await collect(paced, receipts, 60_000);
    process.stderr.write(`paced: p99 ${offered.p99.toFixed(1)} ms\n`);

    printReport({
      throughput: throughput.phase,
      publishedPerSecond: throughput.publishedPerSecond,
      cpuMicrosPerDelivery: (cpuAfter.cpuMicros - cpuBefore.cpuMicros) / EVENTS,
      systemMicrosPerDelivery: (cpuAfter.systemMicros - cpuBefore.systemMicros) / EVENTS,
      loopCpuMicrosPerPost: (loopCpu.user + loopCpu.system) / EVENTS,
      loop,
      offered,
      duplicates,
      badSignatures,
    });
  } finally {
    for (const child of children) child.process.kill("SIGTERM");
    await Promise.all(
      children.map(
        (child) => new Promise((resolve) => (child.process.exitCode === null ? child.process.once("exit", resolve) : resolve(null))),
      ),
    );
    if (CPU_PROFILE_DIR && serviceProcess?.pid) nameProfile(CPU_PROFILE_DIR, serviceProcess.pid);
    await bus.close();
    await doubles.stop();
    await issuer.stop();
    await dropDatabase(database).catch(() => undefined);
    await removeStreams(namespace.stream);
  }
}

/** The ceiling: the same signed body POSTed with undici in a loop, `concurrency` at a time, to the same receiver. */
async function plainLoop(receiverUrl: string, key: string, count: number, concurrency: number): Promise<Phase> {
  const pool = new Pool(receiverUrl, { connections: concurrency });
  const latencies: number[] = [];
  let next = 0;
  const started = clock();
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          next++;
          const body = JSON.stringify({
            document_id: randomUUID(),
            queue_id: randomUUID(),
            status: "ready_to_export",
            webhook_event: "document_status_changed",
          });
          const sent = clock();
          const response = await pool.request({
            method: "POST",
            path: "/plain",
            headers: {
              "content-type": "application/json",
              "x-service-signature": createHmac("sha256", Buffer.from(key, "utf8")).update(body).digest("hex"),
              "x-service-delivery-id": randomUUID(),
              "x-service-timestamp": String(Math.floor(Date.now() / 1000)),
            },
            body,
          });
          await response.body.dump();
          latencies.push(clock() - sent);
        }
      }),
    );
  } finally {
    await pool.close();
  }
  const elapsed = (clock() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: count / elapsed,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: latencies[latencies.length - 1] ?? 0,
    count,
  };
}

/** V8 names a profile CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile: the service's becomes webhook.cpuprofile. */
function nameProfile(directory: string, pid: number): void {
  for (const file of readdirSync(directory).filter((entry) => entry.startsWith("CPU.") && entry.includes(`.${pid}.`)))
    renameSync(path.join(directory, file), path.join(directory, "webhook.cpuprofile"));
}

async function removeStreams(stream: string): Promise<void> {
  const bus = await EventBus.connect({
    url: testNatsUrl(),
    name: "bench-cleanup",
    logger: createLogger("bench", "warn"),
    namespace: { stream, subjectPrefix: "docex_bench_cleanup" },
  }).catch(() => undefined);
  if (!bus) return;
  try {
    const jsm = await jetstreamManager(bus.connection);
    for (const name of [stream, `${stream}_DLQ`]) await jsm.streams.delete(name).catch(() => undefined);
  } finally {
    await bus.close();
  }
}

function printReport(result: {
  throughput: Phase;
  publishedPerSecond: number;
  cpuMicrosPerDelivery: number;
  systemMicrosPerDelivery: number;
  loopCpuMicrosPerPost: number;
  loop: Phase;
  offered: Phase;
  duplicates: number;
  badSignatures: number;
}): void {
  const { throughput, loop, offered } = result;
  const ms = (value: number) => value.toFixed(1);
  const lines = [
    "## delivery",
    "",
    `\`document.status_changed\` published to JetStream → the webhook service (child process, production settings: ${LOOP_CONCURRENCY} connections per receiver,`,
    "128 in flight) → one signed delivery per event to a local receiver (child process, answers 200 at once and checks every signature).",
    "Latency is from the publish of the event to the receiver's receipt of the POST. The plain loop POSTs the same kind of signed body",
    `with undici, ${LOOP_CONCURRENCY} at a time, to the same receiver in the same run. Node ${process.version}, ${cpus().length} CPUs; Postgres and NATS on this machine.`,
    "",
    "| run | events | per second | p50 ms | p99 ms | max ms |",
    "|---|---:|---:|---:|---:|---:|",
    `| service, burst (all published at once) | ${throughput.count} | ${throughput.perSecond.toFixed(0)} deliveries/s | ${ms(throughput.p50)} | ${ms(throughput.p99)} | ${ms(throughput.max)} |`,
    `| plain loop of signed undici POSTs | ${loop.count} | ${loop.perSecond.toFixed(0)} POSTs/s | ${ms(loop.p50)} | ${ms(loop.p99)} | ${ms(loop.max)} |`,
    `| service, ${RATE} events/s offered for ${RATE_SECONDS} s | ${offered.count} | ${offered.perSecond.toFixed(0)} deliveries/s | ${ms(offered.p50)} | ${ms(offered.p99)} | ${ms(offered.max)} |`,
    "",
    `- throughput service / plain loop: **${(throughput.perSecond / loop.perSecond).toFixed(2)}×** (aim ≥ 1,000 deliveries/s: **${throughput.perSecond.toFixed(0)}**)`,
    `- p99 event-to-receipt at ${RATE} events/s: **${ms(offered.p99)} ms** (aim ≤ 100 ms)`,
    `- burst published at ${result.publishedPerSecond.toFixed(0)} events/s; service CPU per delivery ${result.cpuMicrosPerDelivery.toFixed(0)} µs (system ${result.systemMicrosPerDelivery.toFixed(0)} µs); plain loop CPU per POST ${result.loopCpuMicrosPerPost.toFixed(0)} µs`,
    `- duplicate receipts: ${result.duplicates}; bad signatures: ${result.badSignatures}`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

const role = process.argv[2];
if (role === "service" || role === "receiver") {
  process.on("disconnect", () => process.exit(0));
  if (role === "receiver") process.on("SIGTERM", () => process.exit(0));
  await (role === "service" ? runService() : runReceiver());
} else {
  await runBenchmark();
}
