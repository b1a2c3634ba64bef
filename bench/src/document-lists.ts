/**
 * Document lists (issue 37): the latency of GET /api/v2/queues/{id}/documents with each filter and order, of
 * GET /api/v2/documents across the caller's queues, and of GET /api/v2/queues/{id}/document-counts, over HTTP, on a
 * queue of BENCH_DOCUMENTS (10,000) invoices beside a second queue of as many (so that the queue's filter matters).
 *
 * The document service runs in this process against the Postgres and NATS that tests use, in a database of its own
 * that is dropped at the end; membership is the in-process gRPC double of the service's tests (every caller is the
 * owner). The documents are inserted with SQL (the migration's trigger fills the list columns, as for an upload).
 * Reads are sequential on one keep-alive connection: each latency is one request alone (JWT check, cached
 * permission answer, SQL, JSON of a page of 20 whole documents).
 *
 *   node dist/document-lists.js        prints a markdown table
 *
 * BENCH_DOCUMENTS (10000 per queue), BENCH_READS (200 per kind of read).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { MembershipDouble } from "@docex/access/testing";
import { configSchema, startDocumentService } from "@docex/document";
import { databaseUrl } from "@docex/kit/db";
import { dropDatabase, TestIssuer, testDatabaseServerUrl, testServiceConfig } from "@docex/testkit";
import { mochaHooks } from "@docex/testkit/mocha-hooks";
import pg from "pg";
import { Pool } from "undici";

const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS ?? 10_000);
const READS = Number(process.env.BENCH_READS ?? 200);
const AIM_P95_MS = 300;

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ["no", "vak", "sta", "tra", "ding", "elek", "tro", "ser", "vis", "mo", "ra", "pra", "tech", "in", "vest", "gis", "tik"];
const FORMS = ["s.r.o.", "a.s.", "GmbH", "Ltd"];
const STATUSES = ["to_validate", "to_validate", "to_validate", "in_approval", "ready_to_export", "exported", "exported", "postponed"];

/** 300 suppliers, so that a supplier's name matches about 1 document in 300. */
function supplierOf(index: number): { name: string; taxId: string } {
  const next = random(index * 104_729 + 17);
  const word = () => Array.from({ length: 2 + Math.floor(next() * 2) }, () => SYLLABLES[Math.floor(next() * SYLLABLES.length)]).join("");
  const name = `${word()} ${word()} ${FORMS[Math.floor(next() * FORMS.length)]}`;
  return { name: name.charAt(0).toUpperCase() + name.slice(1), taxId: `CZ${String(Math.floor(next() * 1e8)).padStart(8, "0")}` };
}

/** Document n: an invoice of one of the suppliers, a number, a due date in 2026, a total, a status, a creation time. */
function documentOf(n: number, queue: { id: string; workspaceId: string; organizationId: string }) {
  const next = random(n * 7_919 + 3);
  const supplier = supplierOf(Math.floor(next() * 300));
  const invoice = `FV-2026-${String(n).padStart(6, "0")}`;
  const due = new Date(Date.UTC(2026, 0, 1) + Math.floor(next() * 365) * 86_400_000).toISOString().slice(0, 10);
  const total = Math.round(next() * 500_000) / 100;
  const annotations = [
    { key: "invoice_id", value: invoice, confidence: 97 },
    { key: "supplier_name", value: supplier.name, confidence: 91 },
    { key: "supplier_tax_id", value: supplier.taxId, confidence: 95 },
    { key: "due_date", value: due, isoDateValue: due, confidence: 88 },
    { key: "total_due", value: total.toFixed(2), numericValue: total, confidence: 90 },
    { key: "iban", value: "CZ6508000000192000145399", confidence: 80 },
  ];
  return {
    id: randomUUID(),
    queue_id: queue.id,
    workspace_id: queue.workspaceId,
    organization_id: queue.organizationId,
    file_name: `scan-${n}.pdf`,
    status: STATUSES[Math.floor(next() * STATUSES.length)],
    annotations,
    // Spread over a year, one document about every hour.
    created_at: new Date(Date.UTC(2025, 6, 1) + n * 3_153_600).toISOString(),
  };
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

async function waitForQuiet(limitMs: number): Promise<number> {
  const started = performance.now();
  while (loadavg()[0]! >= 1.5 && performance.now() - started < limitMs) await new Promise((resolve) => setTimeout(resolve, 5_000));
  return performance.now() - started;
}

const ms = (value: number) => value.toFixed(1);

async function main(): Promise<void> {
  const issuer = await TestIssuer.start();
  const membership = await MembershipDouble.start();
  const ownerId = randomUUID();
  const organization = membership.addOrganization(`bench-${randomBytes(4).toString("hex")}`, ownerId);
  const config = configSchema.parse({
    ...testServiceConfig("document", { LOG_LEVEL: "error" }),
    DATABASE_NAME: `docex_bench_document_${randomBytes(4).toString("hex")}`,
    AUTH_JWKS_URL: issuer.jwksUri,
    JWT_ISSUER: issuer.issuer,
    JWT_AUDIENCE: issuer.audience,
    MEMBERSHIP_GRPC_ADDR: membership.address,
    // Automation and webhook are not called by reads; nothing listens there.
    AUTOMATION_GRPC_ADDR: "127.0.0.1:9",
    WEBHOOK_GRPC_ADDR: "127.0.0.1:9",
  });
  const running = await startDocumentService(config, { initialValidation: false });
  const database = new pg.Client({ connectionString: databaseUrl(testDatabaseServerUrl(), config.DATABASE_NAME) });
  await database.connect();
  const http = new Pool(`http://127.0.0.1:${running.httpPort}`, { connections: 1, bodyTimeout: 120_000, headersTimeout: 120_000 });
  const headers = { authorization: `Bearer ${issuer.mint({ sub: ownerId })}`, "content-type": "application/json" };

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await http.request({
      method: method as "GET",
      path: `/api/v2${path}`,
      headers,
      body: body ? JSON.stringify(body) : null,
    });
    // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
    const answer = (await response.body.json()) as any;
    if (response.statusCode >= 300) throw new Error(`${method} ${path}: ${response.statusCode} ${JSON.stringify(answer)}`);
    return answer;
  };

  try {
    const workspace = (await call("POST", "/workspaces", { organization_id: organization.id, name: "Bench" })).data;
    const queues = [];
    for (const name of ["Bench invoices", "Other invoices"]) {
      const queue = (await call("POST", "/queues", { workspace_id: workspace.id, name })).data;
      queues.push({ id: queue.id as string, workspaceId: workspace.id as string, organizationId: organization.id });
    }
    const loadStarted = performance.now();
    for (const [index, queue] of queues.entries()) {
      for (let start = 0; start < DOCUMENTS; start += 1_000) {
        const batch = Array.from({ length: Math.min(1_000, DOCUMENTS - start) }, (_, offset) =>
          documentOf(index * DOCUMENTS + start + offset, queue),
        );
        await database.query(
          `INSERT INTO documents (id, queue_id, workspace_id, organization_id, file_name, status, annotations, created_at, updated_at)
           SELECT id, queue_id, workspace_id, organization_id, file_name, status, annotations, created_at, created_at
           FROM jsonb_to_recordset($1::jsonb) AS d (id uuid, queue_id uuid, workspace_id uuid, organization_id uuid, file_name text,
             status text, annotations jsonb, created_at timestamptz)`,
          [JSON.stringify(batch)],
        );
      }
    }
    await database.query("VACUUM ANALYZE documents");
    const loadMs = performance.now() - loadStarted;
    const queueId = queues[0]!.id;
    const sample = documentOf(4_321, queues[0]!);
    const supplierWord = (sample.annotations[1]!.value as string).split(" ")[0]!.toLowerCase();

    const kinds: Array<{ label: string; path: string }> = [
      { label: "the queue, default order (-created_at)", path: `/queues/${queueId}/documents` },
      { label: "status=to_validate", path: `/queues/${queueId}/documents?status=to_validate` },
      {
        label: "status=in_approval,postponed&sort=due_date",
        path: `/queues/${queueId}/documents?status=in_approval,postponed&sort=due_date`,
      },
      { label: "sort=-total_due", path: `/queues/${queueId}/documents?sort=-total_due` },
      { label: "sort=due_date, page 40", path: `/queues/${queueId}/documents?sort=due_date&page=40` },
      { label: `q=${supplierWord} (a supplier's name)`, path: `/queues/${queueId}/documents?q=${encodeURIComponent(supplierWord)}` },
      { label: "q=2026-0043 (invoice numbers)", path: `/queues/${queueId}/documents?q=2026-0043` },
      { label: `q=${sample.annotations[2]!.value} (a tax id)`, path: `/queues/${queueId}/documents?q=${sample.annotations[2]!.value}` },
      { label: "q=scan-1 (file names, many matches)", path: `/queues/${queueId}/documents?q=scan-1` },
      { label: "q=nothing-matches", path: `/queues/${queueId}/documents?q=nothing-matches` },
      {
        label: "created_from/created_to (a month) + status",
        path: `/queues/${queueId}/documents?created_from=2025-10-01&created_to=2025-10-31&status=to_validate`,
      },
      { label: "updated_since (the last day)", path: `/queues/${queueId}/documents?updated_since=2026-06-30T00:00:00Z` },
      { label: "GET /documents (both queues), default", path: "/documents" },
      { label: `GET /documents?q=${supplierWord}&sort=-due_date`, path: `/documents?q=${encodeURIComponent(supplierWord)}&sort=-due_date` },
      { label: "GET /queues/{id}/document-counts", path: `/queues/${queueId}/document-counts` },
    ];
    // Warm-up: JIT, the pool's connections, the permission cache, the plans.
    for (const kind of kinds) for (let index = 0; index < 5; index += 1) await call("GET", kind.path);
    const waited = await waitForQuiet(60_000);
    const loadAtStart = loadavg()[0]!;

    const results = [];
    for (const kind of kinds) {
      const samples: number[] = [];
      let total = 0;
      for (let index = 0; index < READS; index += 1) {
        const started = performance.now();
        const answer = await call("GET", kind.path);
        samples.push(performance.now() - started);
        total = answer.pagination?.total ?? Object.values(answer.data as Record<string, number>).reduce((sum, count) => sum + count, 0);
      }
      samples.sort((a, b) => a - b);
      results.push({ ...kind, p50: percentile(samples, 0.5), p95: percentile(samples, 0.95), max: samples.at(-1)!, total });
    }
    const worst = Math.max(...results.map((result) => result.p95));
    const lines = [
      `## Document lists: ${DOCUMENTS.toLocaleString("en-US")} documents in the queue, ${(DOCUMENTS * 2).toLocaleString("en-US")} in the organization`,
      "",
      `Document service in-process (Node ${process.version}, ${cpus().length} CPUs), Postgres and NATS on 127.0.0.1, over HTTP with a JWT;`,
      `${READS} sequential reads of each kind (page_size 20, whole documents). Loaded in ${ms(loadMs / 1000)} s. Load average`,
      `${loadAtStart.toFixed(1)} at the start${waited > 1000 ? ` (after waiting ${Math.round(waited / 1000)} s)` : ""}, ${loadavg()[0]!.toFixed(1)} at the end.`,
      "",
      "| read | p50 ms | p95 ms | max ms | matches |",
      "|---|---:|---:|---:|---:|",
      ...results.map((result) => `| ${result.label} | ${ms(result.p50)} | ${ms(result.p95)} | ${ms(result.max)} | ${result.total} |`),
      "",
      `- worst p95: **${ms(worst)} ms** (aim ≤ ${AIM_P95_MS} ms)${worst <= AIM_P95_MS ? "" : " — MISSED"}`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    await http.close();
    await database.end();
    await running.stop();
    await dropDatabase(config.DATABASE_NAME);
    await Promise.all([membership.stop(), issuer.stop()]);
    await mochaHooks.afterAll.call(undefined);
  }
}

await main();
