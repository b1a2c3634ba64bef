/**
 * Auth benchmark (informative): logins per second per core at the chosen argon2id cost, and refresh
 * throughput, against the service in-process on real Postgres and NATS on 127.0.0.1.
 *
 *   npm run build && npm run auth -w bench
 *
 * Bounded: each phase runs for PHASE_SECONDS (default 5) and then stops by itself.
 */
import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import { ARGON2_PARAMETERS, configSchema, startAuthService } from "@docex/auth";
import { dropDatabase, testServiceConfig } from "@docex/testkit";
import { mochaHooks } from "@docex/testkit/mocha-hooks";
import argon2 from "argon2";

const PHASE_MS = Number(process.env.PHASE_SECONDS ?? 5) * 1000;
const cores = availableParallelism();
const email = "bench-owner@example.test";
const password = "benchmark owner password";

interface Phase {
  name: string;
  operations: number;
  seconds: number;
  latenciesMs: number[];
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** `workers` loops, each doing `operation` back to back until the phase ends. */
async function run(name: string, workers: number, operation: (worker: number) => Promise<void>): Promise<Phase> {
  const latenciesMs: number[] = [];
  const started = performance.now();
  const deadline = started + PHASE_MS;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        await operation(worker);
        latenciesMs.push(performance.now() - t0);
      }
    }),
  );
  return { name, operations: latenciesMs.length, seconds: (performance.now() - started) / 1000, latenciesMs };
}

function report(phase: Phase, perCore: boolean): void {
  const rate = phase.operations / phase.seconds;
  const columns = [
    phase.name.padEnd(44),
    `${rate.toFixed(1).padStart(8)}/s`,
    perCore ? `${(rate / cores).toFixed(1).padStart(7)}/s/core` : "".padStart(14),
    `p50 ${percentile(phase.latenciesMs, 50).toFixed(1).padStart(6)} ms`,
    `p95 ${percentile(phase.latenciesMs, 95).toFixed(1).padStart(6)} ms`,
  ];
  process.stdout.write(`${columns.join("  ")}\n`);
}

const config = configSchema.parse({
  ...testServiceConfig("auth"),
  AUTH_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
  BOOTSTRAP_OWNER_EMAIL: email,
  BOOTSTRAP_OWNER_PASSWORD: password,
});
const running = await startAuthService(config);
const base = `http://127.0.0.1:${running.httpPort}/api/v2/auth`;

async function post(path: string, body: unknown): Promise<{ data: { refresh_token: string } }> {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { data: { refresh_token: string } };
}

try {
  process.stdout.write(
    `auth benchmark: ${cores} cores, argon2id m=${ARGON2_PARAMETERS.memoryCost} KiB t=${ARGON2_PARAMETERS.timeCost} p=${ARGON2_PARAMETERS.parallelism}, ${PHASE_MS / 1000} s per phase\n\n`,
  );
  const hash = await argon2.hash(password, ARGON2_PARAMETERS);
  report(await run("argon2id verify, one at a time (one core)", 1, async () => void (await argon2.verify(hash, password))), false);
  report(await run(`argon2id verify, ${cores} at a time`, cores, async () => void (await argon2.verify(hash, password))), true);
  report(await run("POST /auth/login, 1 client", 1, async () => void (await post("/login", { email, password }))), false);
  report(
    await run(`POST /auth/login, ${cores * 2} clients`, cores * 2, async () => void (await post("/login", { email, password }))),
    true,
  );

  const chains: string[] = [];
  for (let chain = 0; chain < 16; chain += 1) chains.push((await post("/login", { email, password })).data.refresh_token);
  report(
    await run("POST /auth/refresh, 16 sessions rotating", 16, async (worker) => {
      chains[worker] = (await post("/refresh", { refresh_token: chains[worker] })).data.refresh_token;
    }),
    true,
  );
} finally {
  await running.stop();
  await dropDatabase(config.DATABASE_NAME);
  // The test event namespace's streams (testServiceConfig put the service in it) go as after a test run.
  await mochaHooks.afterAll.call(undefined);
}
