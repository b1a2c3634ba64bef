import { databaseUrl } from "@docex/kit/db";
import { expect } from "chai";
import pg from "pg";
import { Harness, queueFixture, type Reply, type UserApi } from "./support/harness.js";
import { samplePdf } from "./support/sample-files.js";

const UPLOADS_PER_MINUTE = 5;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A JSON upload carrying `bytes` as its file. */
const jsonUpload = (api: UserApi, queueId: string, bytes = samplePdf()) =>
  api.post(`/queues/${queueId}/documents`, { file_name: "invoice.pdf", content: bytes.toString("base64") });

/** A PDF of exactly `size` bytes, different each time. */
const pdfOf = (size: number) => Buffer.concat([samplePdf(), Buffer.alloc(size)]).subarray(0, size);

describe("quotas per organization: stored bytes (413), uploads per minute and documents per month (429) (membership is a double)", function () {
  this.timeout(60_000);
  let h: Harness;
  let database: pg.Client;

  before(async () => {
    h = await Harness.start({
      env: {
        DOCUMENT_QUOTA_UPLOADS_PER_MINUTE: UPLOADS_PER_MINUTE,
        DOCUMENT_QUOTA_UPLOADS_PER_MINUTE_MAX: 50,
        DOCUMENT_QUOTA_STORED_BYTES: 10 * 1024 * 1024,
        DOCUMENT_QUOTA_STORED_BYTES_MAX: 20 * 1024 * 1024,
        DOCUMENT_QUOTA_DOCUMENTS_PER_MONTH: 1_000,
        DOCUMENT_QUOTA_DOCUMENTS_PER_MONTH_MAX: 2_000,
      },
    });
    database = new pg.Client({ connectionString: databaseUrl(h.config.DATABASE_URL, h.config.DATABASE_NAME) });
    await database.connect();
  });

  after(async () => {
    await database?.end();
    await h?.stop();
  });

  const count = async (query: string, values: unknown[] = []) => Number((await database.query(query, values)).rows[0].n);

  /** A raw (streamed) upload of `bytes`, with or without a declared length. */
  async function rawUpload(api: UserApi, queueId: string, bytes: Buffer, declareLength = true): Promise<Reply> {
    const body = declareLength
      ? bytes
      : new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(bytes);
            controller.close();
          },
        });
    const response = await fetch(`${h.baseUrl}/api/v2/queues/${queueId}/documents?file_name=raw.pdf`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.issuer.mint({ sub: api.userId })}`, "content-type": "application/pdf" },
      body,
      duplex: "half",
    } as RequestInit);
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  }

  function expectQuotaProblem(reply: Reply, status: 413 | 429, quota: string, limit: number) {
    expect(reply.status, JSON.stringify(reply.body)).to.equal(status);
    expect(reply.headers.get("content-type")).to.include("application/problem+json");
    expect(reply.body).to.include({ status, code: "quota_exceeded", quota, limit });
    expect(reply.body.detail).to.include(quota);
  }

  /** The uploads-per-minute count restarts at each minute: keep a test's uploads inside one. */
  async function awayFromTheMinuteEnd(): Promise<void> {
    const second = new Date().getUTCSeconds();
    if (second >= 45) await sleep((61 - second) * 1000);
  }

  it("uploads per minute (the configured default): the next upload in the minute is 429 naming the quota, its reset and Retry-After; another organization uploads", async () => {
    await awayFromTheMinuteEnd();
    const busy = await queueFixture(h, "per-minute");
    const other = await queueFixture(h, "per-minute-other");
    for (let i = 0; i < UPLOADS_PER_MINUTE; i++) expect((await jsonUpload(busy.owner, busy.queueId)).status).to.equal(201);

    const refused = await jsonUpload(busy.owner, busy.queueId);
    expectQuotaProblem(refused, 429, "uploads_per_minute", UPLOADS_PER_MINUTE);
    expect(refused.body.used).to.equal(UPLOADS_PER_MINUTE);
    const resetsAt = new Date(refused.body.resets_at).getTime();
    expect(resetsAt % 60_000, "resets at the start of a minute").to.equal(0);
    expect(resetsAt - Date.now()).to.be.within(-2_000, 61_000);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).to.be.within(1, 60);

    // A streamed upload is refused before its body is read, and leaves nothing.
    const chunks = await count("SELECT count(*) AS n FROM file_chunks");
    expectQuotaProblem(await rawUpload(busy.owner, busy.queueId, samplePdf()), 429, "uploads_per_minute", UPLOADS_PER_MINUTE);
    expect(await count("SELECT count(*) AS n FROM file_chunks")).to.equal(chunks);
    expect(await count("SELECT count(*) AS n FROM documents WHERE organization_id = $1", [busy.organization.id])).to.equal(
      UPLOADS_PER_MINUTE,
    );

    expect((await jsonUpload(other.owner, other.queueId)).status, "another organization").to.equal(201);
    expect((await rawUpload(other.owner, other.queueId, samplePdf())).status, "another organization, streamed").to.equal(201);

    const quotas = await busy.owner.get(`/organizations/${busy.organization.id}/quotas`);
    expect(quotas.status).to.equal(200);
    expect(quotas.body.data.uploads_per_minute).to.include({ limit: UPLOADS_PER_MINUTE, used: UPLOADS_PER_MINUTE, overridden: false });
    expect(quotas.body.data.documents_per_month.used).to.equal(UPLOADS_PER_MINUTE);
  });

  it("documents per month (an owner's setting): the next document is 429 until the first of next month (UTC); another organization and raising it let uploads in", async () => {
    await awayFromTheMinuteEnd();
    const busy = await queueFixture(h, "per-month");
    const other = await queueFixture(h, "per-month-other");
    const set = await busy.owner.patch(`/organizations/${busy.organization.humanizedId}/quotas`, { documents_per_month: 2 });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    expect(set.body.data.documents_per_month).to.include({ limit: 2, overridden: true, default: 1_000, used: 0 });

    for (let i = 0; i < 2; i++) expect((await jsonUpload(busy.owner, busy.queueId)).status).to.equal(201);
    const refused = await jsonUpload(busy.owner, busy.queueId);
    expectQuotaProblem(refused, 429, "documents_per_month", 2);
    const now = new Date();
    expect(refused.body.resets_at).to.equal(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString());
    expect(Number(refused.headers.get("retry-after"))).to.be.above(0);

    expect((await jsonUpload(other.owner, other.queueId)).status, "another organization").to.equal(201);

    expect((await busy.owner.patch(`/organizations/${busy.organization.id}/quotas`, { documents_per_month: 3 })).status).to.equal(200);
    expect((await jsonUpload(busy.owner, busy.queueId)).status, "after raising it").to.equal(201);
    expectQuotaProblem(await jsonUpload(busy.owner, busy.queueId), 429, "documents_per_month", 3);
    // null goes back to the configured default.
    const reset = await busy.owner.patch(`/organizations/${busy.organization.id}/quotas`, { documents_per_month: null });
    expect(reset.body.data.documents_per_month).to.include({ limit: 1_000, overridden: false });
    expect((await jsonUpload(busy.owner, busy.queueId)).status).to.equal(201);
  });

  it("stored bytes (an owner's setting): a file that does not fit is 413 and leaves nothing, streamed or not; deleting a document frees its bytes; another organization is not affected", async () => {
    await awayFromTheMinuteEnd();
    const busy = await queueFixture(h, "bytes");
    const other = await queueFixture(h, "bytes-other");
    expect((await busy.owner.patch(`/organizations/${busy.organization.id}/quotas`, { stored_bytes: 10_000 })).status).to.equal(200);

    const first = await jsonUpload(busy.owner, busy.queueId, pdfOf(6_000));
    expect(first.status).to.equal(201);
    const chunks = await count("SELECT count(*) AS n FROM file_chunks");
    const documents = await count("SELECT count(*) AS n FROM documents");

    const json = await jsonUpload(busy.owner, busy.queueId, pdfOf(5_000));
    expectQuotaProblem(json, 413, "stored_bytes", 10_000);
    expect(json.body).to.include({ used: 6_000, resets_at: null });
    // Declared length: refused before the body is read. Unknown length: stored, then refused by the transaction and removed.
    expectQuotaProblem(await rawUpload(busy.owner, busy.queueId, pdfOf(5_000), true), 413, "stored_bytes", 10_000);
    expectQuotaProblem(await rawUpload(busy.owner, busy.queueId, pdfOf(5_000), false), 413, "stored_bytes", 10_000);
    expect(await count("SELECT count(*) AS n FROM file_chunks"), "no bytes kept").to.equal(chunks);
    expect(await count("SELECT count(*) AS n FROM documents"), "no document").to.equal(documents);

    expect((await jsonUpload(other.owner, other.queueId, pdfOf(9_000))).status, "another organization").to.equal(201);
    expect((await jsonUpload(busy.owner, busy.queueId, pdfOf(4_000))).status, "what still fits").to.equal(201);

    const deleted = await busy.owner.post(`/documents/${first.body.data.id}/status`, { status: "deleted" });
    expect(deleted.status, JSON.stringify(deleted.body)).to.equal(200);
    const quotas = await busy.owner.get(`/organizations/${busy.organization.id}/quotas`);
    expect(quotas.body.data.stored_bytes).to.include({ limit: 10_000, used: 4_000, resets_at: null, overridden: true });
    expect((await jsonUpload(busy.owner, busy.queueId, pdfOf(5_000))).status, "after a deletion").to.equal(201);
  });

  it("only an owner changes quotas, each up to its ceiling; members read them; another organization's owner sees nothing", async () => {
    const { organization, owner } = await queueFixture(h, "who");
    const stranger = (await queueFixture(h, "who-else")).owner;
    const admin = h.member(organization.id, "admin");
    const viewer = h.member(organization.id, "viewer");
    const path = `/organizations/${organization.id}/quotas`;

    expect((await viewer.get(path)).status).to.equal(200);
    const byAdmin = await admin.patch(path, { uploads_per_minute: 10 });
    expect(byAdmin.status).to.equal(403);
    expect((await stranger.get(path)).status).to.equal(404);
    expect((await stranger.patch(path, { uploads_per_minute: 10 })).status).to.equal(404);
    const tooHigh = await owner.patch(path, { uploads_per_minute: 51, stored_bytes: 1 });
    expect(tooHigh.status).to.equal(400);
    expect(tooHigh.body.errors).to.deep.equal([
      { path: "uploads_per_minute", message: "must be at most 50 (DOCUMENT_QUOTA_UPLOADS_PER_MINUTE_MAX)" },
    ]);
    expect((await owner.patch(path, { uploads_per_minute: 0 })).status).to.equal(400);
    expect((await owner.patch(path, { uploads: 3 })).status).to.equal(400);
    const unchanged = await owner.get(path);
    expect(unchanged.body.data.uploads_per_minute).to.include({ limit: UPLOADS_PER_MINUTE, overridden: false, ceiling: 50 });
    expect(unchanged.body.data.stored_bytes).to.include({ overridden: false });
  });

  it("a burst of one organization's uploads three times the database pool is counted one after the other: exactly the quota's worth stored, the rest 429, none 503", async () => {
    await awayFromTheMinuteEnd();
    const busy = await queueFixture(h, "burst");
    const pool = h.config.DATABASE_POOL_MAX;
    const burst = 3 * pool;
    const quota = 2 * pool;
    expect(quota, "the override fits under the ceiling").to.be.at.most(50);
    const set = await busy.owner.patch(`/organizations/${busy.organization.id}/quotas`, { uploads_per_minute: quota });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);

    const started = performance.now();
    const replies = await Promise.all(Array.from({ length: burst }, () => jsonUpload(busy.owner, busy.queueId)));
    const seconds = (performance.now() - started) / 1000;
    const statuses = replies.map((reply) => reply.status);
    expect(
      statuses.filter((status) => status !== 201 && status !== 429),
      JSON.stringify(replies.find((reply) => reply.status !== 201 && reply.status !== 429)?.body),
    ).to.deep.equal([]);
    expect(statuses.filter((status) => status === 201)).to.have.length(quota);
    for (const refused of replies.filter((reply) => reply.status === 429)) expectQuotaProblem(refused, 429, "uploads_per_minute", quota);
    expect(await count("SELECT count(*) AS n FROM documents WHERE organization_id = $1", [busy.organization.id])).to.equal(quota);
    // Waiting for a second connection until the pool's acquire timeout (10 s) would show here.
    expect(seconds, "seconds for the burst").to.be.below(8);
    console.log(`      measured: ${burst} uploads at once on a pool of ${pool} in ${seconds.toFixed(1)} s`);
  });

  it("counts refusals by quota in /metrics", async () => {
    const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
    for (const quota of ["uploads_per_minute", "documents_per_month", "stored_bytes"])
      expect(metrics, quota).to.match(new RegExp(`document_quota_refusals_total\\{[^}]*quota="${quota}"[^}]*\\} [1-9]`));
  });
});
