import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databaseUrl } from "@docex/kit/db";
import { expect } from "chai";
import pg from "pg";
import S3rver from "s3rver";
import { Harness, queueFixture, type UserApi } from "./support/harness.js";

const MiB = 1024 * 1024;
/** DOCUMENT_MAX_FILE_BYTES' default: the largest file an upload may carry. */
const FILE_BYTES = 25 * MiB;
const UPLOADS_AT_ONCE = 3;

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A PDF-looking file of `size` bytes, different each time. */
function bigPdf(size: number): Buffer {
  const bytes = Buffer.allocUnsafe(size);
  bytes.write(`%PDF-1.4\n%${randomBytes(8).toString("hex")}\n`, 0, "latin1");
  randomBytes(64 * 1024).copy(bytes, 64);
  return bytes;
}

/**
 * The body as a client on a real network sends it: 1 MiB at a time with a pause between, and without a
 * Content-Length (chunked), so that every upload is still being read while the others arrive.
 */
function pacedBody(bytes: Buffer, pauseMs = 20): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    async pull(controller) {
      if (offset >= bytes.length) return controller.close();
      await sleep(pauseMs);
      controller.enqueue(bytes.subarray(offset, offset + MiB));
      offset += MiB;
    },
  });
}

/** The largest total size of the files in `directory` seen while it runs, sampled every 5 ms. */
function watchDirectory(directory: string) {
  let peak = 0;
  let peakFiles = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      let total = 0;
      const names = await readdir(directory).catch(() => [] as string[]);
      for (const name of names)
        total += await stat(join(directory, name)).then(
          (s) => s.size,
          () => 0,
        );
      peak = Math.max(peak, total);
      peakFiles = Math.max(peakFiles, names.length);
      await sleep(5);
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return { peakBytes: peak, peakFiles };
    },
  };
}

async function upload(
  h: Harness,
  api: UserApi,
  queueId: string,
  body: NonNullable<RequestInit["body"]>,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
) {
  const response = await fetch(`${h.baseUrl}/api/v2/queues/${queueId}/documents?file_name=big.pdf`, {
    method: "POST",
    headers: { authorization: `Bearer ${h.issuer.mint({ sub: api.userId })}`, "content-type": "application/pdf", ...headers },
    body,
    duplex: "half",
    ...(signal ? { signal } : {}),
  } as RequestInit);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

async function fiveConcurrentUploads(h: Harness, spoolDir: string) {
  const { owner, queueId } = await queueFixture(h, "bounded");
  const files = Array.from({ length: 5 }, () => bigPdf(FILE_BYTES));
  const watch = watchDirectory(spoolDir);
  const started = performance.now();
  const answers = await Promise.all(files.map((file) => upload(h, owner, queueId, pacedBody(file))));
  const seconds = (performance.now() - started) / 1000;
  const spool = await watch.stop();
  const stored = answers.flatMap((answer, index) =>
    answer.status === 201 ? [{ id: answer.body.data.id as string, file: files[index]! }] : [],
  );
  const refused = answers.filter((answer) => answer.status === 429);
  return { owner, queueId, answers, stored, refused, spool, seconds };
}

function expectRefusalsPastTheBound(result: Awaited<ReturnType<typeof fiveConcurrentUploads>>) {
  const statuses = result.answers.map((answer) => answer.status).sort();
  expect(statuses, JSON.stringify(result.answers.map((answer) => answer.body))).to.deep.equal([201, 201, 201, 429, 429]);
  for (const refusal of result.refused) {
    expect(refusal.headers.get("content-type")).to.include("application/problem+json");
    expect(refusal.headers.get("retry-after")).to.equal("7");
    expect(refusal.body).to.include({ status: 429, code: "too_many_uploads", bound: "process", limit: UPLOADS_AT_ONCE });
    expect(refusal.body.detail).to.include("DOCUMENT_MAX_CONCURRENT_UPLOADS");
  }
}

/** Waits (polling /metrics, 10 s at most) until the service is reading `count` uploads. */
async function untilUploadsInFlight(h: Harness, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  let seen = "";
  while (Date.now() < deadline) {
    const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
    seen = /^document_uploads_in_flight(?:\{[^}]*\})? (\d+)$/m.exec(metrics)?.[1] ?? "none";
    if (Number(seen) === count) return;
    await sleep(20);
  }
  throw new Error(`the service never read ${count} uploads at once (last seen: ${seen})`);
}

/** Sets process.env for the S3 client the service builds (it reads the usual AWS variables), and puts it back. */
function withEnvironment(values: Record<string, string>) {
  const before = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  Object.assign(process.env, values);
  return () => {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

const boundedEnv = (spoolDir: string, perOrganization = UPLOADS_AT_ONCE) => ({
  DOCUMENT_MAX_CONCURRENT_UPLOADS: UPLOADS_AT_ONCE,
  DOCUMENT_MAX_CONCURRENT_UPLOADS_PER_ORGANIZATION: perOrganization,
  DOCUMENT_UPLOAD_RETRY_AFTER_SECONDS: 7,
  DOCUMENT_UPLOAD_SPOOL_DIR: spoolDir,
});

describe("uploads in flight are bounded per process and per organization; files stream to the store (membership is a double)", function () {
  this.timeout(180_000);

  describe("with the Postgres store (the default): streamed, no spool at all", () => {
    let h: Harness;
    let database: pg.Client;
    let spoolDir: string;

    before(async () => {
      spoolDir = await mkdtemp(join(tmpdir(), "docex-spool-"));
      h = await Harness.start({ env: boundedEnv(spoolDir) });
      database = new pg.Client({ connectionString: databaseUrl(h.config.DATABASE_URL, h.config.DATABASE_NAME) });
      await database.connect();
    });

    after(async () => {
      await database?.end();
      await h?.stop();
      if (spoolDir) await rm(spoolDir, { recursive: true, force: true });
    });

    it("of five concurrent 25 MiB uploads, those past the bound answer 429 with Retry-After; the others are stored whole, nothing is spooled, nothing of the refused is left", async () => {
      const result = await fiveConcurrentUploads(h, spoolDir);
      expectRefusalsPastTheBound(result);
      expect(result.spool.peakBytes, "bytes in the spool directory at the peak").to.equal(0);
      console.log(
        `      measured: spool peak ${result.spool.peakBytes} B in ${result.spool.peakFiles} files; ${result.seconds.toFixed(1)} s for the burst`,
      );

      const documents = await database.query<{ id: string; file_sha256: string; file_size: string }>(
        "SELECT id, file_sha256, file_size FROM documents",
      );
      expect(documents.rows.map((row) => row.id)).to.have.members(result.stored.map((stored) => stored.id));
      for (const { id, file } of result.stored) {
        const row = documents.rows.find((candidate) => candidate.id === id)!;
        expect(row.file_sha256).to.equal(sha256(file));
        expect(Number(row.file_size)).to.equal(FILE_BYTES);
      }
      // Only the stored documents' files: no chunk of a refused upload, no partial put left behind.
      const keys = await database.query<{ file_key: string; bytes: string }>(
        "SELECT file_key, sum(length(data)) AS bytes FROM file_chunks GROUP BY file_key",
      );
      expect(keys.rows.map((row) => row.file_key)).to.have.members(result.stored.map((stored) => stored.id));
      for (const row of keys.rows) expect(Number(row.bytes)).to.equal(FILE_BYTES);

      const first = result.stored[0]!;
      const download = await fetch(`${h.baseUrl}/api/v2/documents/${first.id}/file`, {
        headers: { authorization: `Bearer ${h.issuer.mint({ sub: result.owner.userId })}` },
      });
      expect(download.status).to.equal(200);
      expect(sha256(Buffer.from(await download.arrayBuffer()))).to.equal(sha256(first.file));

      // The slots came back with the answers: the next upload is stored.
      const next = await upload(h, result.owner, result.queueId, pacedBody(bigPdf(2 * MiB), 1));
      expect(next.status, JSON.stringify(next.body)).to.equal(201);
    });

    it("a client that goes away mid-upload leaves nothing in the store and no document", async () => {
      const { owner, queueId } = await queueFixture(h, "gone");
      const count = async (query: string) => Number((await database.query(query)).rows[0].n);
      const chunksBefore = await count("SELECT count(*) AS n FROM file_chunks");
      const documentsBefore = await count("SELECT count(*) AS n FROM documents");
      // 1 MiB every 100 ms, cut after 450 ms: the service has stored a few chunks when the connection goes.
      const cut = await upload(h, owner, queueId, pacedBody(bigPdf(8 * MiB), 100), {}, AbortSignal.timeout(450)).catch(
        (error: unknown) => error,
      );
      expect(cut).to.be.instanceOf(Error);
      const deadline = Date.now() + 10_000;
      let chunks = -1;
      while (Date.now() < deadline) {
        chunks = await count("SELECT count(*) AS n FROM file_chunks");
        if (chunks === chunksBefore) break;
        await sleep(100);
      }
      expect(chunks, "chunks left by the cut upload").to.equal(chunksBefore);
      expect(await count("SELECT count(*) AS n FROM documents")).to.equal(documentsBefore);
    });
  });

  describe("per organization", () => {
    let h: Harness;
    let spoolDir: string;

    before(async () => {
      spoolDir = await mkdtemp(join(tmpdir(), "docex-spool-"));
      h = await Harness.start({ env: boundedEnv(spoolDir, 2) });
    });

    after(async () => {
      await h?.stop();
      if (spoolDir) await rm(spoolDir, { recursive: true, force: true });
    });

    it("one organization's third upload at once is refused by its own bound while another organization's upload is stored", async () => {
      const busy = await queueFixture(h, "busy");
      const other = await queueFixture(h, "other");
      // The order is made, not raced: with the process's bound at 3, the other organization's upload taking its slot
      // before the busy one's third would refuse that third by the process's bound instead. The busy organization's
      // first two send their first MiB and hold the rest until the refusal and the other's upload are answered.
      let letThemFinish = () => {};
      const held = new Promise<void>((resolve) => {
        letThemFinish = resolve;
      });
      const heldBody = (bytes: Buffer) => {
        let offset = 0;
        return new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (offset >= bytes.length) return controller.close();
            if (offset > 0) await held;
            controller.enqueue(bytes.subarray(offset, offset + MiB));
            offset += MiB;
          },
        });
      };
      const first = [0, 1].map(() => upload(h, busy.owner, busy.queueId, heldBody(bigPdf(8 * MiB))));
      try {
        await untilUploadsInFlight(h, 2);
        const third = await upload(h, busy.owner, busy.queueId, pacedBody(bigPdf(8 * MiB)));
        expect(third.status, JSON.stringify(third.body)).to.equal(429);
        expect(third.body).to.include({ code: "too_many_uploads", bound: "organization", limit: 2 });
        expect(third.body.detail).to.include("DOCUMENT_MAX_CONCURRENT_UPLOADS_PER_ORGANIZATION");
        const another = await upload(h, other.owner, other.queueId, pacedBody(bigPdf(8 * MiB)));
        expect(another.status, `another organization, while the first holds its two: ${JSON.stringify(another.body)}`).to.equal(201);
      } finally {
        letThemFinish();
      }
      const answers = await Promise.all(first);
      expect(
        answers.map((answer) => answer.status),
        JSON.stringify(answers.map((answer) => answer.body)),
      ).to.deep.equal([201, 201]);
      const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
      expect(metrics).to.match(/document_upload_refusals_total\{[^}]*bound="organization"[^}]*\} 1/);
    });
  });

  describe("with the S3 store: counted in the spool when the length is unknown, streamed when it is declared", () => {
    let h: Harness;
    let spoolDir: string;
    let s3Dir: string;
    let server: S3rver;
    let restore: () => void;

    before(async () => {
      spoolDir = await mkdtemp(join(tmpdir(), "docex-spool-"));
      s3Dir = await mkdtemp(join(tmpdir(), "docex-s3rver-"));
      server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: s3Dir, configureBuckets: [{ name: "docex-files" }] });
      const { port } = await server.run();
      restore = withEnvironment({
        AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`,
        AWS_REGION: "us-east-1",
        AWS_ACCESS_KEY_ID: "S3RVER",
        AWS_SECRET_ACCESS_KEY: "S3RVER",
      });
      h = await Harness.start({ env: { ...boundedEnv(spoolDir), FILE_STORE_URL: "s3://docex-files/files" } });
    });

    after(async () => {
      await h?.stop();
      restore?.();
      await server?.close();
      for (const directory of [spoolDir, s3Dir]) if (directory) await rm(directory, { recursive: true, force: true });
    });

    const objectKeys = async () => {
      const listing = await fetch(`${process.env.AWS_ENDPOINT_URL_S3 as string}/docex-files?list-type=2&prefix=files/`);
      return [...(await listing.text()).matchAll(/<Key>files\/([^<]+)<\/Key>/g)].map((match) => match[1]);
    };

    it("of five concurrent 25 MiB uploads of unknown length, those past the bound answer 429; the spool never holds more than the bound's files and is empty after", async () => {
      const result = await fiveConcurrentUploads(h, spoolDir);
      expectRefusalsPastTheBound(result);
      console.log(
        `      measured: spool peak ${result.spool.peakBytes} B in ${result.spool.peakFiles} files; ${result.seconds.toFixed(1)} s for the burst`,
      );
      expect(result.spool.peakBytes, "bytes in the spool directory at the peak").to.be.above(0);
      expect(result.spool.peakBytes).to.be.at.most(UPLOADS_AT_ONCE * FILE_BYTES);
      expect(result.spool.peakFiles).to.be.at.most(UPLOADS_AT_ONCE);
      expect(await readdir(spoolDir)).to.deep.equal([]);
      expect(await objectKeys()).to.have.members(result.stored.map((stored) => stored.id));
    });

    it("streams an upload of declared length straight to S3: nothing spooled", async () => {
      const { owner, queueId } = await queueFixture(h, "declared");
      const watch = watchDirectory(spoolDir);
      const file = bigPdf(6 * MiB);
      const answer = await upload(h, owner, queueId, file);
      const spool = await watch.stop();
      expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
      expect(spool.peakBytes).to.equal(0);
      expect(await objectKeys()).to.include(answer.body.data.id);
    });
  });
});
