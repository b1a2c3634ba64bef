/**
 * Audit log: how fast the one consumer records events (it sees every event of the stream), and the latency of
 * audit-log pages when an organization has a year of entries (1,000,000 by default) among other organizations'.
 *
 * The audit service and membership (who may read) run in this process against the Postgres and NATS that tests use,
 * in databases and a JetStream namespace of their own, dropped at the end; auth and document are small stand-ins (no
 * audit read asks them). The year of entries is written with one INSERT … SELECT generate_series and vacuumed as autovacuum would
 * (the consumer's path is measured separately, by events published to the stream). Reads are sequential on one keep-alive connection, so each
 * latency is one request alone: JWT check, membership's CheckPermission over gRPC, SQL, JSON.
 *
 *   node dist/audit.js        prints a markdown table
 *
 * BENCH_AUDIT_ENTRIES (1000000 in the organization read), BENCH_AUDIT_EVENTS (20000 through the consumer),
 * BENCH_READS (200 per kind of read).
 */
import { randomUUID } from "node:crypto";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { configSchema as auditConfigSchema, startAuditService } from "@docex/audit";
import { createEvent } from "@docex/events";
import { EventBus } from "@docex/kit/bus";
import { databaseUrl } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import { configSchema, startMembershipService } from "@docex/membership";
import { dropDatabase, TestIssuer, testEventNamespace, testNatsUrl, testServiceConfig } from "@docex/testkit";
import { mochaHooks } from "@docex/testkit/mocha-hooks";
import pg from "pg";
import { Pool } from "undici";

const ENTRIES = Number(process.env.BENCH_AUDIT_ENTRIES ?? 1_000_000);
const EVENTS = Number(process.env.BENCH_AUDIT_EVENTS ?? 20_000);
const READS = Number(process.env.BENCH_READS ?? 200);
const USERS = 50;
const DOCUMENTS = 20_000;
/** The aim for a page of the audit log, whatever the filter: a person waits on it. */
const PAGE_AIM_MS = 50;

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

const ms = (value: number, digits = 1) => value.toFixed(digits);
const thousands = (value: number) => Math.round(value).toLocaleString("en-US");

async function main(): Promise<void> {
  const issuer = await TestIssuer.start();
  const config = testServiceConfig(
    "membership",
    { AUTH_JWKS_URL: issuer.jwksUri, JWT_ISSUER: issuer.issuer, JWT_AUDIENCE: issuer.audience, LOG_LEVEL: "warn" },
    configSchema,
  );
  const notServed = async (): Promise<never> => {
    throw new Error("not served by the benchmark's stand-in");
  };
  const membership = await startMembershipService(config, {
    logger: createLogger("membership-bench", "warn"),
    userDirectory: { findByEmail: notServed, get: async () => undefined, invite: notServed, close: () => undefined },
    queues: { queueIn: async () => true },
  });
  const auditConfig = testServiceConfig(
    "audit",
    {
      AUTH_JWKS_URL: issuer.jwksUri,
      JWT_ISSUER: issuer.issuer,
      JWT_AUDIENCE: issuer.audience,
      LOG_LEVEL: "warn",
      MEMBERSHIP_GRPC_ADDR: `127.0.0.1:${membership.grpcPort}`,
    },
    auditConfigSchema,
  );
  const running = await startAuditService(auditConfig, { logger: createLogger("audit-bench", "warn") });
  const db = new pg.Client({ connectionString: databaseUrl(auditConfig.DATABASE_URL, auditConfig.DATABASE_NAME) });
  await db.connect();
  const http = new Pool(`http://127.0.0.1:${running.httpPort}`, { connections: 1 });
  const bus = await EventBus.connect({
    url: testNatsUrl(),
    namespace: testEventNamespace(),
    name: "audit-bench",
    logger: createLogger("bench", "warn"),
  });
  try {
    const ownerId = randomUUID();
    const token = issuer.mint({ sub: ownerId });
    const get = async (path: string) => {
      const response = await http.request({ method: "GET", path: `/api/v2${path}`, headers: { authorization: `Bearer ${token}` } });
      const body = (await response.body.json()) as { data: unknown[]; pagination?: { total: number } };
      if (response.statusCode !== 200) throw new Error(`GET ${path}: ${response.statusCode} ${JSON.stringify(body)}`);
      return body;
    };
    const created = await fetch(`http://127.0.0.1:${membership.httpPort}/api/v2/organizations`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Audited" }),
    });
    const organizationId = ((await created.json()) as { data: { id: string } }).data.id;

    // 1. The consumer: events published to the stream as the services' relays would, until all are recorded.
    const queueId = randomUUID();
    const workspaceId = randomUUID();
    const events = Array.from({ length: EVENTS }, (_, i) =>
      createEvent("document.status_changed", {
        organization_id: organizationId,
        data: {
          document_id: randomUUID(),
          queue_id: queueId,
          workspace_id: workspaceId,
          status: i % 2 ? "to_validate" : "postponed",
          previous_status: i % 2 ? "postponed" : "to_validate",
          user_id: ownerId,
        },
        actor_user_id: ownerId,
        request_id: `bench-${i}`,
      }),
    );
    const consumeStarted = performance.now();
    for (let i = 0; i < events.length; i += 500) {
      await Promise.all(events.slice(i, i + 500).map((event) => bus.publish(`docex.${event.type}`, event, { msgId: event.id })));
    }
    const published = performance.now();
    const deadline = Date.now() + 600_000;
    for (;;) {
      const { rows } = await db.query<{ count: string }>("SELECT count(*) FROM audit_entries WHERE type = 'document.status_changed'");
      if (Number(rows[0]!.count) >= EVENTS) break;
      if (Date.now() > deadline) throw new Error(`only ${rows[0]!.count} of ${EVENTS} events recorded in 10 min`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const consumeSeconds = (performance.now() - consumeStarted) / 1000;

    // 2. A year of entries: this organization's ENTRIES, and as many of 99 others, for the indexes to choose from.
    const seedStarted = performance.now();
    await db.query(
      `INSERT INTO audit_entries (event_id, organization_id, type, occurred_at, user_id, request_id, document_id, queue_id, details)
       SELECT gen_random_uuid(),
              CASE WHEN n % 2 = 0 THEN $1::uuid ELSE ('00000000-0000-4000-8000-' || lpad(to_hex(n % 99), 12, '0'))::uuid END,
              (ARRAY['document.status_changed', 'document.annotations_changed', 'document.created', 'auth.login_attempted',
                     'membership.changed', 'configuration.changed'])[1 + (n % 13) % 6],
              now() - (n % 525600) * interval '1 minute',
              ('00000000-0000-4000-9000-' || lpad(to_hex(n % $2), 12, '0'))::uuid,
              'seed-' || n,
              ('00000000-0000-4000-a000-' || lpad(to_hex(n % $3), 12, '0'))::uuid,
              $4::uuid,
              jsonb_build_object('from', 'to_validate', 'to', 'ready_to_export', 'n', n)
       FROM generate_series(1, $5::int) AS n`,
      [organizationId, USERS, DOCUMENTS, queueId, ENTRIES * 2],
    );
    // The seed bypassed the consumer's statement, which keeps audit_counts; count it once, as migration 0003 does.
    await db.query(
      `INSERT INTO audit_counts (organization_id, type, entries)
       SELECT organization_id, type, count(*) FROM audit_entries WHERE request_id LIKE 'seed-%' GROUP BY 1, 2
       ON CONFLICT (organization_id, type) DO UPDATE SET entries = audit_counts.entries + EXCLUDED.entries`,
    );
    // What autovacuum does on a table a year old: visibility map and statistics.
    await db.query("VACUUM ANALYZE audit_entries");
    const seedSeconds = (performance.now() - seedStarted) / 1000;

    // 3. Pages, each kind READS times.
    // n % 50 = 8 for even n (the organization read): a user of this organization.
    const user = "00000000-0000-4000-9000-000000000008";
    const documentId = "00000000-0000-4000-a000-000000000020";
    const day = new Date(Date.now() - 100 * 24 * 3600 * 1000);
    const dayAfter = new Date(day.getTime() + 24 * 3600 * 1000);
    const kinds: Array<[label: string, path: string]> = [
      ["newest page (page_size 50)", `/organizations/${organizationId}/audit-log?page_size=50`],
      ["page 100 (offset 4,950)", `/organizations/${organizationId}/audit-log?page_size=50&page=100`],
      ["type=document.status_changed", `/organizations/${organizationId}/audit-log?page_size=50&type=document.status_changed`],
      ["type=auth (a family)", `/organizations/${organizationId}/audit-log?page_size=50&type=auth`],
      ["user_id= one of 50 users", `/organizations/${organizationId}/audit-log?page_size=50&user_id=${user}`],
      [
        "from/to: one day 100 days ago",
        `/organizations/${organizationId}/audit-log?page_size=50&from=${encodeURIComponent(day.toISOString())}&to=${encodeURIComponent(dayAfter.toISOString())}`,
      ],
      ["one document's log", `/documents/${documentId}/audit-log?page_size=50`],
    ];
    const results: Array<{ label: string; p50: number; p95: number; total: number }> = [];
    for (const [label, path] of kinds) {
      await get(path); // warm
      const samples: number[] = [];
      let total = 0;
      for (let i = 0; i < READS; i += 1) {
        const started = performance.now();
        const body = await get(path);
        samples.push(performance.now() - started);
        total = body.pagination?.total ?? 0;
      }
      samples.sort((a, b) => a - b);
      results.push({ label, p50: percentile(samples, 0.5), p95: percentile(samples, 0.95), total });
    }

    const worst = Math.max(...results.map((result) => result.p95));
    console.log(`audit benchmark: ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}; ${READS} reads per kind, sequential\n`);
    console.log(
      `consumer: ${thousands(EVENTS)} events published in ${ms((published - consumeStarted) / 1000, 2)} s, all recorded after ${ms(consumeSeconds, 2)} s: **${thousands(EVENTS / consumeSeconds)} events/s**`,
    );
    console.log(`seed: ${thousands(ENTRIES * 2)} entries (${thousands(ENTRIES)} in the organization read) in ${ms(seedSeconds)} s\n`);
    console.log(`| GET …/audit-log, ${thousands(ENTRIES)} entries in the organization | p50 ms | p95 ms | total matching |`);
    console.log("|---|---:|---:|---:|");
    for (const result of results)
      console.log(`| ${result.label} | ${ms(result.p50, 2)} | ${ms(result.p95, 2)} | ${thousands(result.total)} |`);
    console.log("");
    console.log(`- consumer throughput: **${thousands(EVENTS / consumeSeconds)} events/s** recorded (one insert per event)`);
    console.log(`- worst p95 of an audit-log page: **${ms(worst, 2)} ms** (aim ≤ ${PAGE_AIM_MS} ms)`);
  } finally {
    await http.close();
    await bus.close();
    await db.end();
    await running.stop();
    await membership.stop();
    await Promise.all([dropDatabase(auditConfig.DATABASE_NAME), dropDatabase(config.DATABASE_NAME)]);
    await issuer.stop();
    await mochaHooks.afterAll.call(undefined);
  }
}

await main();
