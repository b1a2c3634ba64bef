import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { connectDatabase, runMigrations } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import { dropDatabase, testDatabaseServerUrl, uniqueDatabaseName } from "@docex/testkit";
import { expect } from "chai";
import S3rver from "s3rver";
import type { FileStore } from "../src/files/file-store.js";
import { PostgresFileStore } from "../src/files/postgres-file-store.js";
import { parseS3Url, S3FileStore } from "../src/files/s3-file-store.js";
import { migrations } from "../src/store/migrations.js";

async function bytesOf(stream: Readable): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for await (const piece of stream) pieces.push(Buffer.from(piece as Uint8Array));
  return Buffer.concat(pieces);
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** A stream that yields `bytes` in pieces and then fails, as a client that disconnects mid-upload. */
function failingAfter(bytes: Buffer): Readable {
  return Readable.from(
    (async function* () {
      yield bytes.subarray(0, bytes.length / 2);
      await new Promise((resolve) => setTimeout(resolve, 5));
      throw new Error("connection reset by the client");
    })(),
  );
}

/** The same contract for every backend: what the document service relies on. */
function fileStoreContract(name: string, setup: () => Promise<{ store: FileStore; teardown(): Promise<void> }>) {
  describe(`FileStore contract: ${name}`, function () {
    this.timeout(60_000);
    let store: FileStore;
    let teardown: () => Promise<void>;

    before(async () => {
      ({ store, teardown } = await setup());
    });

    after(async () => {
      store?.close();
      await teardown?.();
    });

    const key = () => `00000000-0000-4000-8000-${randomBytes(6).toString("hex")}`;

    it("gives back exactly the bytes put, for an empty, a small, and a multi-chunk file (2.3 MiB)", async () => {
      for (const size of [0, 1, 1_000, 2_400_000]) {
        const bytes = randomBytes(size);
        const id = key();
        await store.put(id, Readable.from([bytes]), bytes.length);
        const stream = await store.get(id);
        expect(stream, `size ${size}`).to.not.equal(undefined);
        expect(sha256(await bytesOf(stream!)), `size ${size}`).to.equal(sha256(bytes));
      }
    });

    it("accepts the bytes in pieces of any size", async () => {
      const bytes = randomBytes(700_000);
      const pieces: Buffer[] = [];
      for (let offset = 0; offset < bytes.length; offset += 12_345) pieces.push(bytes.subarray(offset, offset + 12_345));
      const id = key();
      await store.put(id, Readable.from(pieces), bytes.length);
      expect((await bytesOf((await store.get(id))!)).equals(bytes)).to.equal(true);
    });

    it("answers undefined for a key with nothing stored", async () => {
      expect(await store.get(key())).to.equal(undefined);
    });

    it("replaces what was stored under a key", async () => {
      const id = key();
      await store.put(id, Readable.from([Buffer.from("first version, longer than the second")]), 37);
      await store.put(id, Readable.from([Buffer.from("second")]), 6);
      expect((await bytesOf((await store.get(id))!)).toString()).to.equal("second");
    });

    it("deletes, and deleting a missing key is fine", async () => {
      const id = key();
      await store.put(id, Readable.from([Buffer.from("bytes")]), 5);
      await store.delete(id);
      expect(await store.get(id)).to.equal(undefined);
      await store.delete(id);
    });

    it("keeps nothing when the stream fails half way", async () => {
      const bytes = randomBytes(600_000);
      const id = key();
      const error = await store.put(id, failingAfter(bytes), bytes.length).catch((reason: unknown) => reason);
      expect(error).to.be.instanceOf(Error);
      expect(await store.get(id)).to.equal(undefined);
    });

    it("keeps nothing when the stream holds fewer bytes than announced", async () => {
      const id = key();
      const error = await store.put(id, Readable.from([Buffer.from("short")]), 10).catch((reason: unknown) => reason);
      expect(error).to.be.instanceOf(Error);
      expect(await store.get(id)).to.equal(undefined);
    });

    it("streams a file out as it is read rather than in one piece", async () => {
      const bytes = randomBytes(1_200_000);
      const id = key();
      await store.put(id, Readable.from([bytes]), bytes.length);
      let pieces = 0;
      let total = 0;
      for await (const piece of (await store.get(id))!) {
        pieces++;
        total += (piece as Buffer).length;
      }
      expect(total).to.equal(bytes.length);
      expect(pieces).to.be.greaterThan(1);
    });
  });
}

fileStoreContract("Postgres (the document database, 256 KiB chunks)", async () => {
  const database = uniqueDatabaseName("document_files");
  const logger = createLogger("file-store-test", "silent");
  const db = await connectDatabase({ serverUrl: testDatabaseServerUrl(), database, logger });
  await runMigrations(db, migrations, logger);
  return {
    store: new PostgresFileStore(db),
    teardown: async () => {
      await db.close();
      await dropDatabase(database);
    },
  };
});

fileStoreContract("S3 (an S3-compatible server, s3rver, started by the test on 127.0.0.1)", async () => {
  const directory = await mkdtemp(join(tmpdir(), "docex-s3rver-"));
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: "docex-files" }] });
  const { port } = await server.run();
  const env = { AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`, AWS_REGION: "us-east-1" };
  const store = new S3FileStore(
    "s3://docex-files/tenant/files",
    { credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } },
    env,
  );
  return {
    store,
    teardown: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
});

describe("FILE_STORE_URL", () => {
  it("names the bucket and a prefix without slashes at either end", () => {
    expect(parseS3Url("s3://bucket/a/b/")).to.deep.equal({ bucket: "bucket", prefix: "a/b" });
    expect(parseS3Url("s3://bucket")).to.deep.equal({ bucket: "bucket", prefix: "" });
    expect(() => parseS3Url("https://bucket/a")).to.throw(/s3:\/\/bucket\/prefix/);
  });
});
