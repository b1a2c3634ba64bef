/**
 * Gateway overhead: an authenticated GET through the gateway against the same GET straight
 * to the service, measured in one run, alternating rounds. The service and the gateway run
 * as child processes, so neither shares an event loop with the load generator.
 *
 *   node dist/gateway.js                  the benchmark (prints a markdown table)
 *   node dist/gateway.js upstream|gateway child roles, started by the benchmark itself
 *
 * BENCH_ROUNDS (5), BENCH_SECONDS (4, per target and round), BENCH_CONNECTIONS (16).
 * BENCH_GATEWAY_CPU_PROF=<dir>: the gateway runs with --cpu-prof; its profile is <dir>/gateway-<start time>.cpuprofile
 * (`node dist/profile-summary.js <dir>`).
 * BENCH_GATEWAY_BASELINE=<gateway/ of another worktree, built>: that gateway runs too, as a third target of the same
 * rounds, so that a before/after is measured side by side (the machine's load moves between runs).
 * BENCH_GATEWAY_TRACING=1: a gateway with tracing on (OTLP to a sink in this process) runs too, beside the one with
 * tracing off. Both gateways start as the image starts them, with the kit's tracing register.
 */
import { type ChildProcess, fork } from "node:child_process";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { authenticate, CachedTokenVerifier, TokenVerifier } from "@docex/kit/auth";
import { SERVICE_NAMES, type ServiceName } from "@docex/kit/config";
import { ClientAddressSigner, createHttpApp, Readiness } from "@docex/kit/http";
import { createLogger } from "@docex/kit/logger";
import { Metrics } from "@docex/kit/metrics";
import { listen } from "@docex/kit/runtime";
import { TestIssuer, testGrpcIdentity } from "@docex/testkit";
import { Pool } from "undici";
import { OtlpSink } from "./otlp-sink.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const LATENCY_SECONDS = 1.5;
const PATH = "/api/v2/queues/acme-invoices";
const CPU_PROFILE_DIR = process.env.BENCH_GATEWAY_CPU_PROF;
const BASELINE = process.env.BENCH_GATEWAY_BASELINE;
const TRACING = process.env.BENCH_GATEWAY_TRACING === "1";
const TRACING_REGISTER = "@docex/kit/tracing/register";

type Target = "direct" | "gateway" | "baseline" | "traced";

interface Sample {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

interface TargetResult {
  load: Sample;
  single: Sample;
  /** CPU time per request under load, in microseconds, of the service and of the gateway. */
  serviceCpu: number;
  gatewayCpu: number;
}

type Round = Record<"direct" | "gateway", TargetResult> & { baseline?: TargetResult; traced?: TargetResult };

function verifierFromEnv(): TokenVerifier {
  return new TokenVerifier({ jwksUri: process.env.JWKS_URL!, issuer: process.env.JWT_ISSUER!, audience: process.env.JWT_AUDIENCE! });
}

/** Child: a service as the gateway sees one, kit's HTTP app with `authenticate` and a small JSON answer. */
async function runUpstream(): Promise<void> {
  const verifier = verifierFromEnv();
  const app = createHttpApp({
    logger: createLogger("bench-upstream", "warn"),
    metrics: new Metrics("bench-upstream"),
    readiness: new Readiness(),
    routes: (router) => {
      router.get("/api/v2/queues/:queue_id", authenticate(verifier), (req, res) => {
        res.json({ data: { id: req.params.queue_id, name: "Invoices", user_id: req.caller?.userId } });
      });
    },
  });
  reportPortAndUsage(await listen(app, "127.0.0.1", 0));
}

/** Child: the gateway (this worktree's, or the one GATEWAY_MODULE names) with every service pointing at the upstream and no rate limit. */
async function runGateway(): Promise<void> {
  const module = process.env.GATEWAY_MODULE;
  const { createGateway, UpstreamPool } = (await import(module ?? "@docex/gateway")) as typeof import("@docex/gateway");
  const urls = Object.fromEntries(SERVICE_NAMES.map((name) => [name, process.env.UPSTREAM_URL!])) as Record<ServiceName, string>;
  const app = createGateway({
    logger: createLogger("gateway", "warn"),
    metrics: new Metrics("gateway"),
    readiness: new Readiness(),
    verifier: new CachedTokenVerifier(verifierFromEnv()),
    upstreams: new UpstreamPool(urls),
    rateLimitPerMinute: 0,
    upstreamTimeoutMs: 30_000,
    clientAddresses: new ClientAddressSigner(testGrpcIdentity("gateway")),
  });
  reportPortAndUsage(await listen(app, "127.0.0.1", 0));
}

interface Usage {
  cpuMicros: number;
  requests: number;
}

/** Tells the parent the port, then answers each "usage" message with the CPU time and requests served so far. */
function reportPortAndUsage(server: Server): void {
  let requests = 0;
  server.on("request", () => requests++);
  process.on("message", () => {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuMicros: user + system, requests } satisfies Usage);
  });
  process.send?.({ port: (server.address() as AddressInfo).port });
}

class ChildHandle {
  constructor(
    readonly child: ChildProcess,
    readonly url: string,
  ) {}

  usage(): Promise<Usage> {
    return new Promise((resolve) => {
      this.child.once("message", (message) => resolve(message as Usage));
      this.child.send("usage");
    });
  }
}

/** CPU time a child spent per request it served between two usage readings, in microseconds. */
const cpuPerRequest = (before: Usage, after: Usage) => (after.cpuMicros - before.cpuMicros) / Math.max(1, after.requests - before.requests);

function startChild(role: "upstream" | "gateway", env: Record<string, string>): Promise<ChildHandle> {
  const profiled = role === "gateway" && CPU_PROFILE_DIR;
  // The gateway starts as its image does: the tracing register first, which does nothing without OTEL_EXPORTER_OTLP_ENDPOINT.
  const execArgv = role === "gateway" ? ["--import", TRACING_REGISTER, ...process.execArgv] : process.execArgv;
  const child = fork(fileURLToPath(import.meta.url), [role], {
    env: { ...process.env, ...env },
    execArgv: profiled
      ? [...execArgv, "--cpu-prof", `--cpu-prof-dir=${path.resolve(CPU_PROFILE_DIR)}`, `--cpu-prof-name=gateway-${Date.now()}.cpuprofile`]
      : execArgv,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (message) => resolve(new ChildHandle(child, `http://127.0.0.1:${(message as { port: number }).port}`)));
    child.once("exit", (code) => reject(new Error(`${role} exited with ${code} before listening`)));
  });
}

/** A closed loop of `connections` clients, each sending the next request when the last one answered. */
async function measure(pool: Pool, token: string, connections: number, seconds: number): Promise<Sample> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) {
        const sent = performance.now();
        const { statusCode, body } = await pool.request({ method: "GET", path: PATH, headers: { authorization: `Bearer ${token}` } });
        await body.dump();
        latencies.push(performance.now() - sent);
        if (statusCode !== 200) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (quantile: number) => latencies[Math.min(latencies.length - 1, Math.floor(quantile * latencies.length))] ?? Number.NaN;
  return { requestsPerSecond: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), errors };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function runBenchmark(): Promise<void> {
  const issuer = await TestIssuer.start();
  const sink = TRACING ? await OtlpSink.start() : undefined;
  const children: ChildProcess[] = [];
  const pools: Pool[] = [];
  try {
    const jwtEnv = { JWKS_URL: issuer.jwksUri, JWT_ISSUER: issuer.issuer, JWT_AUDIENCE: issuer.audience };
    const upstream = await startChild("upstream", jwtEnv);
    children.push(upstream.child);
    const gateways: Partial<Record<Target, ChildHandle>> = {};
    // Tracing off as a process without OTEL_EXPORTER_OTLP_ENDPOINT has it, whatever this shell says.
    const tracingOff = { OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_SDK_DISABLED: "" };
    gateways.gateway = await startChild("gateway", { ...jwtEnv, ...tracingOff, UPSTREAM_URL: upstream.url });
    if (sink)
      gateways.traced = await startChild("gateway", { ...jwtEnv, UPSTREAM_URL: upstream.url, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url });
    if (BASELINE) {
      const module = pathToFileURL(path.resolve(BASELINE, "dist/index.js")).href;
      gateways.baseline = await startChild("gateway", { ...jwtEnv, ...tracingOff, UPSTREAM_URL: upstream.url, GATEWAY_MODULE: module });
    }
    children.push(...Object.values(gateways).map((handle) => handle.child));
    const token = issuer.mint({ sub: "6a8f3c1e-2b4d-4e5f-8a9b-0c1d2e3f4a5b" });
    const names: Target[] = ["direct", "gateway", ...(sink ? (["traced"] as const) : []), ...(BASELINE ? (["baseline"] as const) : [])];
    const urlOf = (name: Target) => (name === "direct" ? upstream.url : gateways[name]!.url);
    const loadPools = Object.fromEntries(names.map((name) => [name, new Pool(urlOf(name), { connections: CONNECTIONS })]));
    const singlePools = Object.fromEntries(names.map((name) => [name, new Pool(urlOf(name), { connections: 1 })]));
    pools.push(...Object.values(loadPools), ...Object.values(singlePools));

    for (const name of names) await measure(loadPools[name]!, token, CONNECTIONS, 2);

    const rounds: Round[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate the order of the targets, so that drift of the machine hits them alike.
      const order = round % 2 === 0 ? names : [...names].reverse();
      const result: Partial<Record<Target, TargetResult>> = {};
      for (const name of order) {
        const gateway = name === "direct" ? undefined : gateways[name];
        const before = await Promise.all([upstream.usage(), gateway?.usage()]);
        const load = await measure(loadPools[name]!, token, CONNECTIONS, SECONDS);
        const after = await Promise.all([upstream.usage(), gateway?.usage()]);
        const single = await measure(singlePools[name]!, token, 1, LATENCY_SECONDS);
        const gatewayCpu = before[1] && after[1] ? cpuPerRequest(before[1], after[1]) : 0;
        result[name] = { load, single, serviceCpu: cpuPerRequest(before[0], after[0]), gatewayCpu };
      }
      rounds.push(result as Round);
      process.stderr.write(
        `round ${round + 1}/${ROUNDS}: ${names.map((name) => `${name} ${result[name]!.load.requestsPerSecond.toFixed(0)} req/s`).join(", ")}\n`,
      );
    }
    printReport(rounds, sink);
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
    for (const child of children) child.kill("SIGTERM");
    await issuer.stop();
    await sink?.stop();
  }
}

function printReport(rounds: Round[], sink: OtlpSink | undefined): void {
  const names: Target[] = [
    "direct",
    "gateway",
    ...(rounds[0]?.traced ? (["traced"] as const) : []),
    ...(rounds[0]?.baseline ? (["baseline"] as const) : []),
  ];
  const results = (name: Target) => rounds.map((round) => round[name]!);
  const stat = (name: Target, kind: "load" | "single", field: keyof Sample) => median(results(name).map((result) => result[kind][field]));
  const serviceCpu = median(results("direct").map((result) => result.serviceCpu));
  const gatewayCpu = (name: Target) => median(results(name).map((result) => result.gatewayCpu));
  const row = (name: Target) =>
    `| ${name} | ${stat(name, "load", "requestsPerSecond").toFixed(0)} | ${stat(name, "load", "p50").toFixed(2)} | ${stat(name, "load", "p99").toFixed(2)} | ${stat(name, "single", "requestsPerSecond").toFixed(0)} | ${stat(name, "single", "p50").toFixed(3)} | ${stat(name, "single", "p99").toFixed(3)} |`;
  const ratio = (name: Target) => stat(name, "load", "requestsPerSecond") / stat("direct", "load", "requestsPerSecond");
  const addedSingle = (name: Target) => stat(name, "single", "p50") - stat("direct", "single", "p50");
  const addedLoad = (name: Target) => stat(name, "load", "p50") - stat("direct", "load", "p50");
  const errors = names.flatMap(results).reduce((sum, result) => sum + result.load.errors + result.single.errors, 0);
  const lines = [
    "## gateway",
    "",
    `Authenticated \`GET ${PATH}\`: the service (kit \`createHttpApp\` + \`authenticate\`) verifies the RS256 token on every request, the gateway`,
    "through its `CachedTokenVerifier` (a full check once per token and minute, as in production). Gateway and service run in child processes,",
    `load from undici in the parent process; ${ROUNDS} rounds alternating ${names.join(", ")}, ${SECONDS} s under load with ${CONNECTIONS} connections`,
    `and ${LATENCY_SECONDS} s with one connection per target and round; medians over rounds. Node ${process.version}, ${cpus().length} CPUs.`,
    "",
    `| target | req/s (${CONNECTIONS} conn) | p50 ms | p99 ms | req/s (1 conn) | p50 ms | p99 ms |`,
    "|---|---:|---:|---:|---:|---:|---:|",
    ...names.map(row),
    "",
    `- throughput gateway/direct: **${ratio("gateway").toFixed(2)}×** (aim ≥ 0.85×)`,
    `- added p50 under load (${CONNECTIONS} connections): **${addedLoad("gateway").toFixed(2)} ms** (aim ≤ 1 ms); with one connection: ${addedSingle("gateway").toFixed(3)} ms`,
    `- CPU time per request under load: service ${serviceCpu.toFixed(0)} µs, gateway ${gatewayCpu("gateway").toFixed(0)} µs`,
  ];
  if (names.includes("baseline")) {
    const cpuRatio = median(rounds.map((round) => round.gateway.gatewayCpu / round.baseline!.gatewayCpu));
    lines.push(
      `- baseline (${BASELINE}): throughput ${ratio("baseline").toFixed(2)}× of direct, added p50 ${addedLoad("baseline").toFixed(2)} ms under load and ${addedSingle("baseline").toFixed(3)} ms with one connection, ${gatewayCpu("baseline").toFixed(0)} µs of CPU per request`,
      `- gateway CPU per request / baseline's, median of the rounds' ratios: **${cpuRatio.toFixed(3)}**`,
    );
  }
  if (sink) {
    const cpuRatio = median(rounds.map((round) => round.traced!.gatewayCpu / round.gateway.gatewayCpu));
    lines.push(
      `- tracing on (\`traced\`: every request a trace, OTLP/protobuf to a local sink): throughput ${ratio("traced").toFixed(2)}× of direct, added p50 ${addedLoad("traced").toFixed(2)} ms under load and ${addedSingle("traced").toFixed(3)} ms with one connection, ${gatewayCpu("traced").toFixed(0)} µs of CPU per request`,
      `- gateway CPU per request, tracing on / off, median of the rounds' ratios: **${cpuRatio.toFixed(3)}**; the sink received ${sink.requests} exports, ${(sink.bytes / 1024 / 1024).toFixed(1)} MiB`,
    );
  }
  lines.push(`- non-200 answers: ${errors}`);
  process.stdout.write(`${lines.join("\n")}\n`);
}

const role = process.argv[2];
if (role === "upstream" || role === "gateway") {
  process.on("disconnect", () => process.exit(0));
  process.on("SIGTERM", () => process.exit(0));
  await (role === "upstream" ? runUpstream() : runGateway());
} else {
  await runBenchmark();
}
