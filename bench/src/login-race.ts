/**
 * Login-race benchmark: how many password guesses a parallel burst gets checked before the throttle stops it.
 * 200 wrong logins for one account are sent at once, against the auth service in-process on real Postgres and
 * NATS on 127.0.0.1 with its default limits, and the answers are counted: every 401 is a password that was
 * verified (argon2id ran), every 429 one the throttle refused before verifying.
 *
 *   npm run build && node bench/dist/login-race.js
 *
 * Three bursts: the bootstrap owner from one client address (the limit per account and address applies), an
 * unknown email from one address (limited exactly like a known one), and an unknown email from 200 addresses
 * (only the per-account total applies). Bounded: each burst ends when its 200 answers are in.
 */
import { randomBytes } from "node:crypto";
import { configSchema, startAuthService } from "@docex/auth";
import { dropDatabase, testServiceConfig } from "@docex/testkit";
import { mochaHooks } from "@docex/testkit/mocha-hooks";

const BURST = Number(process.env.LOGIN_RACE_BURST ?? 200);
/**
 * The same bursts against the code before attempts were reserved (commit 1d708d9: check, verify, then count),
 * measured with this benchmark on the project's machine; the old code cannot run here any more.
 */
const BEFORE = [32, 200, 200];
const owner = "race-owner@example.test";

const config = configSchema.parse({
  ...testServiceConfig("auth"),
  AUTH_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
  BOOTSTRAP_OWNER_EMAIL: owner,
  BOOTSTRAP_OWNER_PASSWORD: "the owner's real password",
});
const running = await startAuthService(config);
const base = `http://127.0.0.1:${running.httpPort}`;

interface Burst {
  name: string;
  limit: string;
  statuses: Map<number, number>;
  checks: number | undefined;
  seconds: number;
}

/** Password verifications so far, from the service's own counter (absent in builds that do not have it). */
async function passwordChecks(): Promise<number | undefined> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split("\n").find((row) => row.startsWith("auth_credential_checks_total") && row.includes('kind="password"'));
  return line ? Number(line.split(" ").pop()) : undefined;
}

async function burst(name: string, limit: string, email: string, address: (index: number) => string): Promise<Burst> {
  const checksBefore = await passwordChecks();
  const started = performance.now();
  const answers = await Promise.all(
    Array.from({ length: BURST }, async (_, index) => {
      const response = await fetch(`${base}/api/v2/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": address(index) },
        body: JSON.stringify({ email, password: `wrong guess number ${index}` }),
      });
      await response.arrayBuffer();
      return response.status;
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const statuses = new Map<number, number>();
  for (const status of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1);
  const checksAfter = await passwordChecks();
  const checks = checksBefore === undefined || checksAfter === undefined ? undefined : checksAfter - checksBefore;
  return { name, limit, statuses, checks, seconds };
}

try {
  const bursts = [
    await burst("known account, one address", "10 per account and address", owner, () => "203.0.113.7"),
    await burst("unknown email, one address", "10 per account and address", "nobody-race@example.test", () => "203.0.113.8"),
    await burst(
      "unknown email, 200 addresses",
      "50 per account (total)",
      "nobody-spread@example.test",
      (i) => `198.18.${i >> 8}.${i & 255}`,
    ),
  ];
  const lines = [
    "## login-race",
    "",
    `${BURST} wrong logins for one account sent at once to the auth service (in-process, default limits, Postgres and NATS on`,
    "this machine). Every 401 is a password that argon2id verified; every 429 was refused by the throttle before verifying.",
    "",
    "| burst | limit | verified before (1d708d9) | verified (401) | refused (429) | other | service's own count | burst s |",
    "|---|---|---:|---:|---:|---:|---:|---:|",
  ];
  bursts.forEach(({ name, limit, statuses, checks, seconds }, index) => {
    const verified = statuses.get(401) ?? 0;
    const refused = statuses.get(429) ?? 0;
    const other = BURST - verified - refused;
    const before = BURST === 200 ? String(BEFORE[index]) : "n/a";
    lines.push(`| ${name} | ${limit} | ${before} | ${verified} | ${refused} | ${other} | ${checks ?? "n/a"} | ${seconds.toFixed(2)} |`);
  });
  const worst = Math.max(...bursts.slice(0, 2).map((b) => b.statuses.get(401) ?? 0));
  lines.push(
    "",
    "Before, the throttle checked, then verified, then counted: a burst passed the check before its first failure was counted.",
    "Now each attempt is counted (under row locks) before its password is verified. The old limits were 10 per account and 100",
    "per address; the 200-address burst now meets the account's total of 50.",
    "",
    `- password guesses verified per lockout, ${BURST} parallel from one address: **${worst}** (limit 10; before: ${Math.max(...BEFORE.slice(0, 2))})`,
  );
  process.stdout.write(`${lines.join("\n")}\n`);
} finally {
  await running.stop();
  await dropDatabase(config.DATABASE_NAME);
  // The test event namespace's streams (testServiceConfig put the service in it) go as after a test run.
  await mochaHooks.afterAll.call(undefined);
}
