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
 */
import { type ChildProcess, fork } from "node:child_process";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createGateway, UpstreamPool } from "@docex/gateway";
import {
  authenticate,
  CachedTokenVerifier,
  createHttpApp,
  createLogger,
  listen,
  Metrics,
  Readiness,
  SERVICE_NAMES,
  type ServiceName,
  TokenVerifier,
} from "@docex/kit";
import { TestIssuer } from "@docex/testkit";
import { Pool } from "undici";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const LATENCY_SECONDS = 1.5;
const PATH = "/api/v2/queues/acme-invoices";
const CPU_PROFILE_DIR = process.env.BENCH_GATEWAY_CPU_PROF;

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

interface Round {
  direct: TargetResult;
  gateway: TargetResult;
}

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

/** Child: the gateway with every service pointing at the upstream and no rate limit. */
async function runGateway(): Promise<void> {
  const urls = Object.fromEntries(SERVICE_NAMES.map((name) => [name, process.env.UPSTREAM_URL!])) as Record<ServiceName, string>;
  const app = createGateway({
    logger: createLogger("gateway", "warn"),
    metrics: new Metrics("gateway"),
    readiness: new Readiness(),
    verifier: new CachedTokenVerifier(verifierFromEnv()),
    upstreams: new UpstreamPool(urls),
    rateLimitPerMinute: 0,
    upstreamTimeoutMs: 30_000,
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
  const child = fork(fileURLToPath(import.meta.url), [role], {
    env: { ...process.env, ...env },
    execArgv: profiled
      ? [
          ...process.execArgv,
          "--cpu-prof",
          `--cpu-prof-dir=${path.resolve(CPU_PROFILE_DIR)}`,
          `--cpu-prof-name=gateway-${Date.now()}.cpuprofile`,
        ]
      : process.execArgv,
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
  const children: ChildProcess[] = [];
  const pools: Pool[] = [];
  try {
    const jwtEnv = { JWKS_URL: issuer.jwksUri, JWT_ISSUER: issuer.issuer, JWT_AUDIENCE: issuer.audience };
    const upstream = await startChild("upstream", jwtEnv);
    children.push(upstream.child);
    const gateway = await startChild("gateway", { ...jwtEnv, UPSTREAM_URL: upstream.url });
    children.push(gateway.child);
    const token = issuer.mint({ sub: "6a8f3c1e-2b4d-4e5f-8a9b-0c1d2e3f4a5b" });
    const targets = { direct: upstream.url, gateway: gateway.url } as const;
    const loadPools = {
      direct: new Pool(targets.direct, { connections: CONNECTIONS }),
      gateway: new Pool(targets.gateway, { connections: CONNECTIONS }),
    };
    const singlePools = { direct: new Pool(targets.direct, { connections: 1 }), gateway: new Pool(targets.gateway, { connections: 1 }) };
    pools.push(...Object.values(loadPools), ...Object.values(singlePools));

    for (const name of ["direct", "gateway"] as const) await measure(loadPools[name], token, CONNECTIONS, 2);

    const rounds: Round[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which target goes first, so that drift of the machine hits both alike.
      const order = round % 2 === 0 ? (["direct", "gateway"] as const) : (["gateway", "direct"] as const);
      const result: Partial<Round> = {};
      for (const name of order) {
        const before = await Promise.all([upstream.usage(), gateway.usage()]);
        const load = await measure(loadPools[name], token, CONNECTIONS, SECONDS);
        const after = await Promise.all([upstream.usage(), gateway.usage()]);
        const single = await measure(singlePools[name], token, 1, LATENCY_SECONDS);
        result[name] = { load, single, serviceCpu: cpuPerRequest(before[0], after[0]), gatewayCpu: cpuPerRequest(before[1], after[1]) };
      }
      rounds.push(result as Round);
      process.stderr.write(
        `round ${round + 1}/${ROUNDS}: direct ${result.direct!.load.requestsPerSecond.toFixed(0)} req/s, gateway ${result.gateway!.load.requestsPerSecond.toFixed(0)} req/s\n`,
      );
    }
    printReport(rounds);
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
    for (const child of children) child.kill("SIGTERM");
    await issuer.stop();
  }
}

function printReport(rounds: Round[]): void {
  const stat = (name: "direct" | "gateway", kind: "load" | "single", field: keyof Sample) =>
    median(rounds.map((round) => round[name][kind][field]));
  const serviceCpu = median(rounds.map((round) => round.direct.serviceCpu));
  const gatewayCpu = median(rounds.map((round) => round.gateway.gatewayCpu));
  const row = (name: "direct" | "gateway") =>
    `| ${name} | ${stat(name, "load", "requestsPerSecond").toFixed(0)} | ${stat(name, "load", "p50").toFixed(2)} | ${stat(name, "load", "p99").toFixed(2)} | ${stat(name, "single", "requestsPerSecond").toFixed(0)} | ${stat(name, "single", "p50").toFixed(3)} | ${stat(name, "single", "p99").toFixed(3)} |`;
  const ratio = stat("gateway", "load", "requestsPerSecond") / stat("direct", "load", "requestsPerSecond");
  const addedSingle = stat("gateway", "single", "p50") - stat("direct", "single", "p50");
  const addedLoad = stat("gateway", "load", "p50") - stat("direct", "load", "p50");
  const errors = rounds.reduce(
    (sum, round) => sum + round.direct.load.errors + round.gateway.load.errors + round.direct.single.errors + round.gateway.single.errors,
    0,
  );
  const lines = [
    "## gateway",
    "",
    `Authenticated \`GET ${PATH}\`: the service (kit \`createHttpApp\` + \`authenticate\`) verifies the RS256 token on every request, the gateway`,
    "through its `CachedTokenVerifier` (a full check once per token and minute, as in production). Gateway and service run in child processes,",
    `load from undici in the parent process; ${ROUNDS} rounds alternating direct and gateway, ${SECONDS} s under load with ${CONNECTIONS} connections`,
    `and ${LATENCY_SECONDS} s with one connection per target and round; medians over rounds. Node ${process.version}, ${cpus().length} CPUs.`,
    "",
    `| target | req/s (${CONNECTIONS} conn) | p50 ms | p99 ms | req/s (1 conn) | p50 ms | p99 ms |`,
    "|---|---:|---:|---:|---:|---:|---:|",
    row("direct"),
    row("gateway"),
    "",
    `- throughput gateway/direct: **${ratio.toFixed(2)}×** (aim ≥ 0.6×)`,
    `- added p50 with one connection: **${addedSingle.toFixed(3)} ms** (aim ≤ 1 ms); under load (${CONNECTIONS} connections): ${addedLoad.toFixed(2)} ms`,
    `- CPU time per request under load: service ${serviceCpu.toFixed(0)} µs, gateway ${gatewayCpu.toFixed(0)} µs`,
    `- non-200 answers: ${errors}`,
  ];
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
