/**
 * Registers: the time of a 100,000-item upsert through POST /api/v2/registers, and the latency of item pages
 * and q searches in a register of 1,000,000 items (loaded through the same bulk path), over HTTP.
 *
 * The register service runs in this process against the Postgres and NATS that tests use, in a database of
 * its own that is dropped at the end; document (ResolveEntity) and membership (CheckPermission) are small
 * in-process gRPC doubles, as in the service's tests. Reads are sequential on one keep-alive connection, so
 * each latency is one request alone: JWT check, cached permission answer, SQL, JSON.
 *
 *   node dist/registers.js        prints a markdown table
 *
 * BENCH_ITEMS (1000000, the register read from), BENCH_READS (400 per kind of read).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { databaseUrl } from "@docex/kit/db";
import { NotFoundError } from "@docex/kit/errors";
import { ANY_SERVICE, GrpcServer } from "@docex/kit/grpc";
import { createLogger } from "@docex/kit/logger";
import { type DocumentHandlers, documentService, type MembershipHandlers, membershipService } from "@docex/protos";
import { configSchema, startRegisterService } from "@docex/register";
import { dropDatabase, TestIssuer, testDatabaseServerUrl, testGrpcIdentity, testServiceConfig } from "@docex/testkit";
import { mochaHooks } from "@docex/testkit/mocha-hooks";
import pg from "pg";
import { Pool } from "undici";

const READ_REGISTER_ITEMS = Number(process.env.BENCH_ITEMS ?? 1_000_000);
const READS = Number(process.env.BENCH_READS ?? 400);
const UPLOAD_ITEMS = 100_000;

// ---------------------------------------------------------------------------------------------------------
// Data: a supplier register as a Czech company would upload it. Deterministic, so runs compare.

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

const SYLLABLES = [
  "no",
  "vak",
  "sta",
  "vby",
  "tra",
  "ding",
  "al",
  "fa",
  "be",
  "ta",
  "elek",
  "tro",
  "ser",
  "vis",
  "bo",
  "he",
  "mi",
  "a",
  "mo",
  "ra",
  "va",
  "pra",
  "ha",
  "br",
  "tech",
  "in",
  "vest",
  "ag",
  "ro",
  "da",
  "lo",
  "gis",
  "tik",
  "me",
  "di",
  "ka",
  "kon",
  "zul",
  "print",
  "au",
  "to",
  "kov",
  "dřev",
  "ples",
  "stav",
  "ma",
  "ter",
  "ial",
  "sklo",
  "hut",
];
const LEGAL_FORMS = ["s.r.o.", "a.s.", "spol. s r.o.", "GmbH", "Ltd", "k.s."];
const CITIES = ["Praha", "Brno", "Ostrava", "Plzeň", "Olomouc", "Liberec", "České Budějovice", "Hradec Králové"];

function wordOf(next: () => number): string {
  const count = 2 + Math.floor(next() * 2);
  let word = "";
  for (let index = 0; index < count; index += 1) word += SYLLABLES[Math.floor(next() * SYLLABLES.length)];
  return word.charAt(0).toUpperCase() + word.slice(1);
}

interface BenchItem {
  value: string;
  label: string;
  name: string;
  register_id: string;
  tax_id: string;
  data: Record<string, unknown>;
}

/** Item number n of a data set: an 8-character supplier code unique per n, a company name, its IČO and DIČ. */
function itemOf(n: number, seed: number): BenchItem {
  const next = random(n * 7919 + seed);
  const value = ((BigInt(n) * 2654435761n) % 36n ** 8n).toString(36).toUpperCase().padStart(8, "0");
  const name = `${wordOf(next)} ${wordOf(next)}`;
  const ico = String(Math.floor(next() * 1e8)).padStart(8, "0");
  const country = next();
  const taxId = country < 0.7 ? `CZ${ico}` : country < 0.85 ? `SK20${ico}` : `DE${String(Math.floor(next() * 1e9)).padStart(9, "0")}`;
  return {
    value,
    label: `${name} ${LEGAL_FORMS[Math.floor(next() * LEGAL_FORMS.length)]}`,
    name,
    register_id: ico,
    tax_id: taxId,
    data: { city: CITIES[Math.floor(next() * CITIES.length)], payment_terms_days: 14 + Math.floor(next() * 4) * 15 },
  };
}

function itemsFrom(start: number, count: number, seed = 1): BenchItem[] {
  return Array.from({ length: count }, (_, index) => itemOf(start + index, seed));
}

// ---------------------------------------------------------------------------------------------------------
// The two services the register service calls, as in its tests: one queue, and everyone is its owner.

async function startDoubles(
  queueId: string,
  organizationId: string,
): Promise<{ documents: string; membership: string; stop(): Promise<void> }> {
  const logger = createLogger("bench-doubles", "silent");
  const unused = async (): Promise<never> => {
    throw new Error("not called by the register service");
  };
  const document = new GrpcServer(logger, { identity: testGrpcIdentity("document") });
  const documentHandlers: DocumentHandlers = {
    async ResolveEntity(request) {
      if (request.id_or_humanized !== queueId) throw new NotFoundError("no such queue");
      return {
        entity_type: "queue",
        id: queueId,
        humanized_id: "bench-suppliers",
        organization_id: organizationId,
        workspace_id: randomUUID(),
        queue_id: queueId,
        document_id: "",
      };
    },
    GetQueue: unused,
    GetDocument: unused,
    ApplyDocumentChanges: unused,
    ReadDocumentFile: async function* () {
      yield await unused();
    },
    RecordExtraction: unused,
    RecordValidationWebhook: unused,
    HasValidationLink: unused,
    ResolveInbox: unused,
    ReceiveEmailDocument: unused,
  };
  document.addService(documentService.definition, documentService.serviceName, documentHandlers, ANY_SERVICE);
  const membership = new GrpcServer(logger, { identity: testGrpcIdentity("membership") });
  const membershipHandlers: MembershipHandlers = {
    async CheckPermission() {
      return { allowed: true, is_member: true, role: "owner" };
    },
    async GetRoles() {
      return { role: "owner", queue_ids: [], all_queues: true, status: "active" };
    },
    CreateOrganization: unused,
    GetUserSchema: unused,
    ListOrganizationsOfUser: unused,
    GetOrganization: unused,
    AcceptInvitation: unused,
  };
  membership.addService(membershipService.definition, membershipService.serviceName, membershipHandlers, ANY_SERVICE);
  const [documentPort, membershipPort] = await Promise.all([document.listen("127.0.0.1", 0), membership.listen("127.0.0.1", 0)]);
  return {
    documents: `127.0.0.1:${documentPort}`,
    membership: `127.0.0.1:${membershipPort}`,
    async stop() {
      await Promise.all([document.shutdown(1_000), membership.shutdown(1_000)]);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------

interface Latencies {
  p50: number;
  p95: number;
  p99: number;
  /** Mean of the `total` the answers reported. */
  meanTotal: number;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

/** Waits until the machine's 1-minute load average is below 1.5, at most `limitMs`; returns how long it waited. */
async function waitForQuiet(limitMs: number): Promise<number> {
  const started = performance.now();
  while (loadavg()[0]! >= 1.5 && performance.now() - started < limitMs) await new Promise((resolve) => setTimeout(resolve, 5_000));
  return performance.now() - started;
}

const ms = (value: number, digits = 1) => value.toFixed(digits);
const thousands = (value: number) => Math.round(value).toLocaleString("en-US");

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  const organizationId = randomUUID();
  const queueId = randomUUID();
  const userId = randomUUID();
  const [issuer, doubles] = await Promise.all([TestIssuer.start(), startDoubles(queueId, organizationId)]);
  const config = configSchema.parse({
    ...testServiceConfig("register", { LOG_LEVEL: "warn" }),
    DATABASE_NAME: `docex_bench_register_${randomBytes(4).toString("hex")}`,
    AUTH_JWKS_URL: issuer.jwksUri,
    JWT_ISSUER: issuer.issuer,
    JWT_AUDIENCE: issuer.audience,
    DOCUMENT_GRPC_ADDR: doubles.documents,
    MEMBERSHIP_GRPC_ADDR: doubles.membership,
  });
  const running = await startRegisterService(config);
  const database = new pg.Client({ connectionString: databaseUrl(testDatabaseServerUrl(), config.DATABASE_NAME) });
  await database.connect();
  const http = new Pool(`http://127.0.0.1:${running.httpPort}`, { connections: 1, bodyTimeout: 120_000, headersTimeout: 120_000 });
  const token = issuer.mint({ sub: userId });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };

  const post = async (body: string): Promise<{ status: number; ms: number; data: { id: string; item_count: number }[] }> => {
    const started = performance.now();
    const response = await http.request({ method: "POST", path: "/api/v2/registers", headers, body });
    const answer = (await response.body.json()) as { data: { id: string; item_count: number }[] };
    const elapsed = performance.now() - started;
    if (response.statusCode !== 201) throw new Error(`upload answered ${response.statusCode}: ${JSON.stringify(answer)}`);
    return { status: response.statusCode, ms: elapsed, data: answer.data };
  };
  const uploadBody = (method: string, name: string, items: BenchItem[]) => JSON.stringify([{ queue_id: queueId, method, name, items }]);
  /** Waits for the merge of the search index's pending list that a large upload starts, then merges what is left. */
  const settleSearchIndex = async () => {
    const started = performance.now();
    await database.query("SET maintenance_work_mem = '256MB'");
    await database.query("SELECT gin_clean_pending_list('register_items_search'::regclass)");
    return performance.now() - started;
  };

  try {
    // Warm-up: JIT, connections, the permission cache.
    await post(uploadBody("upsert", "Warm-up", itemsFrom(10_000_000, 2_000)));
    await settleSearchIndex();

    // In a function of its own, so that its 100,000-item arrays are garbage before the reads are timed.
    const measureUpserts = async () => {
      const upserts: { label: string; ms: number; settleMs: number; bodyMiB: number }[] = [];
      const fresh = itemsFrom(0, UPLOAD_ITEMS);
      const changed = fresh.map((item) => ({ ...item, label: `${item.label} (renamed)`, data: { ...item.data, blocked: false } }));
      for (const [label, items] of [
        ["100,000 new values (empty register)", fresh],
        ["100,000 known values, every label changed", changed],
        ["100,000 known values, nothing changed", changed],
      ] as const) {
        const body = uploadBody("upsert", "Upserted", items);
        const { ms: elapsed } = await post(body);
        upserts.push({ label, ms: elapsed, settleMs: await settleSearchIndex(), bodyMiB: Buffer.byteLength(body) / 2 ** 20 });
      }
      return upserts;
    };
    const upserts = await measureUpserts();

    // The register that reads go to: loaded by appends of 100,000 through the same endpoint.
    let loadMs = 0;
    let registerId = "";
    for (let start = 0; start < READ_REGISTER_ITEMS; start += UPLOAD_ITEMS) {
      const count = Math.min(UPLOAD_ITEMS, READ_REGISTER_ITEMS - start);
      const answer = await post(uploadBody("append", "Suppliers", itemsFrom(1_000_000 + start, count, 2)));
      loadMs += answer.ms;
      registerId = answer.data[0]!.id;
    }
    const loadSettleMs = await settleSearchIndex();
    // What autovacuum does after a bulk load (statistics, visibility map); run now so that reads do not race it.
    await database.query("VACUUM (ANALYZE) register_items");

    // The machine may be shared: reads start once its load has settled, or after three minutes anyway.
    const waitedForQuiet = await waitForQuiet(180_000);
    const loadAtReads = loadavg()[0]!;

    const read = async (path: string): Promise<{ ms: number; total: number; count: number }> => {
      const started = performance.now();
      const response = await http.request({ method: "GET", path, headers: { authorization: `Bearer ${token}` } });
      const answer = (await response.body.json()) as { data: unknown[]; pagination: { total: number } };
      const elapsed = performance.now() - started;
      if (response.statusCode !== 200) throw new Error(`${path} answered ${response.statusCode}`);
      return { ms: elapsed, total: answer.pagination.total, count: answer.data.length };
    };
    const measure = async (paths: () => string, count = READS): Promise<Latencies> => {
      for (let index = 0; index < 20; index += 1) await read(paths());
      const samples: number[] = [];
      let totals = 0;
      for (let index = 0; index < count; index += 1) {
        const answer = await read(paths());
        samples.push(answer.ms);
        totals += answer.total;
      }
      samples.sort((a, b) => a - b);
      return { p50: percentile(samples, 0.5), p95: percentile(samples, 0.95), p99: percentile(samples, 0.99), meanTotal: totals / count };
    };

    const next = random(42);
    const pick = (size: number) => Math.floor(next() * size);
    const loadedItem = () => itemOf(1_000_000 + pick(READ_REGISTER_ITEMS), 2);
    const items = (query: string) => `/api/v2/registers/${registerId}/items?${query}`;
    const q = (text: string) => items(`q=${encodeURIComponent(text)}`);
    const reads: { label: string; result: Latencies }[] = [];
    const measureRead = async (label: string, paths: () => string, count?: number) =>
      reads.push({ label, result: await measure(paths, count) });

    await measureRead("page, page_size 20, random page of 50,000", () => items(`page=${1 + pick(READ_REGISTER_ITEMS / 20)}`));
    await measureRead("page, page_size 100, random page of 10,000", () =>
      items(`page=${1 + pick(READ_REGISTER_ITEMS / 100)}&page_size=100`),
    );
    await measureRead("q = a supplier code (value)", () => q(loadedItem().value));
    await measureRead("q = an IČO (register_id)", () => q(loadedItem().register_id));
    await measureRead("q = 6 digits of a DIČ (tax_id)", () => q(loadedItem().tax_id.slice(-6)));
    await measureRead("q = a word of a company name (label, name)", () => q(loadedItem().name.split(" ")[pick(2)]!.toLowerCase()));
    await measureRead("q = two words of a company name", () => q(loadedItem().name));
    const searchKinds = reads.slice(2).map((entry) => entry.result);
    await measureRead('q = "zzyzx" (no match)', () => q("zzyzx"), 100);
    await measureRead('q = "x&y" (no word of three characters, no match)', () => q("x&y"), 100);
    await measureRead('q = "s.r.o." (broad: a third of the register)', () => q("s.r.o."), 20);
    await measureRead('q = "cz" (broad: 70 % of the register)', () => q("cz"), 10);
    await measureRead('q = "s.r.o.", page 5,000 (offset 99,980)', () => items(`q=s.r.o.&page=5000`), 10);

    const [{ trigrams }] = (
      await database.query<{ trigrams: string }>(
        `SELECT round(avg(array_length(show_trgm(search_text), 1)), 1) AS trigrams FROM register_items WHERE register_id = $1 AND position <= 10000`,
        [registerId],
      )
    ).rows as [{ trigrams: string }];

    const lines = [
      "## registers",
      "",
      `Register service in-process (Node ${process.version}, ${cpus().length} CPUs), Postgres and NATS on 127.0.0.1, over HTTP with a JWT`,
      "check on every request; document and membership are in-process gRPC doubles. Synthetic Czech supplier register: 8-character",
      `codes, company names of generated words, IČO, DIČ, a small data object; ${trigrams} trigrams per item in the search index.`,
      `Load average of the machine (1 min): ${loadBefore.toFixed(1)} at the start, ${loadAtReads.toFixed(1)} when the reads began` +
        ` (after waiting ${Math.round(waitedForQuiet / 1000)} s for it to settle), ${loadavg()[0]!.toFixed(1)} at the end.`,
      "",
      "| upsert through POST /registers | body MiB | time s | items/s | search index merged after s |",
      "|---|---:|---:|---:|---:|",
      ...upserts.map(
        (entry) =>
          `| ${entry.label} | ${entry.bodyMiB.toFixed(1)} | ${ms(entry.ms / 1000, 2)} | ${thousands(UPLOAD_ITEMS / (entry.ms / 1000))} | ${ms(entry.settleMs / 1000, 2)} |`,
      ),
      `| load of the read register: ${READ_REGISTER_ITEMS / UPLOAD_ITEMS} appends of 100,000 | | ${ms(loadMs / 1000, 1)} | ${thousands(READ_REGISTER_ITEMS / (loadMs / 1000))} | ${ms(loadSettleMs / 1000, 2)} |`,
      "",
      `| GET /registers/{id}/items, ${thousands(READ_REGISTER_ITEMS)} items in the register | p50 ms | p95 ms | p99 ms | mean total |`,
      "|---|---:|---:|---:|---:|",
      ...reads.map(
        ({ label, result }) =>
          `| ${label} | ${ms(result.p50, 2)} | ${ms(result.p95, 2)} | ${ms(result.p99, 2)} | ${thousands(result.meanTotal)} |`,
      ),
      "",
      `- upsert of 100,000 new items: **${ms((upserts[0]?.ms ?? 0) / 1000, 2)} s** (aim ≤ 5 s)`,
      `- p95 of a page (page_size 100): **${ms(reads[1]?.result.p95 ?? 0, 2)} ms**; worst p95 of the selective searches: **${ms(Math.max(...searchKinds.map((result) => result.p95)), 2)} ms** (aim ≤ 20 ms)`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    await http.close();
    await database.end();
    await running.stop();
    await dropDatabase(config.DATABASE_NAME);
    await Promise.all([doubles.stop(), issuer.stop()]);
    // The test event namespace's streams (testServiceConfig put the service in it) go as after a test run.
    await mochaHooks.afterAll.call(undefined);
  }
}

await main();
