import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import type { Sql } from "@docex/kit/db";
import { type FileStore, SizeMismatchError } from "./file-store.js";

/** The default chunk: small enough for one bytea row and one gRPC message, large enough to keep row counts low. */
export const POSTGRES_CHUNK_BYTES = 256 * 1024;

/**
 * Chunks of a put in progress live under `partial/<uuid>`: no reader asks for such a key (keys are document ids), and
 * a put cut short by a crash leaves rows that removeAbandoned recognises by it.
 */
const PARTIAL_PREFIX = "partial/";

/**
 * Files in the document service's own database (table file_chunks), so a fresh install and a cluster of replicas need
 * nothing more. A put writes each chunk as it arrives, under a key of its own, each in a statement of its own: a slow
 * client holds no connection and no transaction open between its chunks. One short transaction at the end moves the
 * chunks under the real key (the bytes are not copied: the TOASTed values stay where they are), so a reader sees
 * the whole file or nothing. Read back one chunk per query.
 */
export class PostgresFileStore implements FileStore {
  readonly kind = "postgres";
  readonly takesUnknownLength = true;

  constructor(
    private readonly sql: Sql,
    private readonly chunkBytes = POSTGRES_CHUNK_BYTES,
  ) {}

  async put(key: string, content: Readable, size?: number): Promise<void> {
    const partialKey = `${PARTIAL_PREFIX}${randomUUID()}`;
    try {
      let seq = 0;
      let total = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const write = async (chunk: Buffer) => {
        await this.sql.run("INSERT INTO file_chunks (file_key, seq, data) VALUES ($1, $2, $3)", [partialKey, seq++, chunk]);
      };
      for await (const piece of content) {
        const buffer = Buffer.isBuffer(piece) ? piece : Buffer.from(piece as Uint8Array);
        total += buffer.length;
        if (size !== undefined && total > size) throw new SizeMismatchError(size, total);
        pending.push(buffer);
        pendingBytes += buffer.length;
        if (pendingBytes < this.chunkBytes) continue;
        let joined = Buffer.concat(pending, pendingBytes);
        while (joined.length >= this.chunkBytes) {
          await write(joined.subarray(0, this.chunkBytes));
          joined = joined.subarray(this.chunkBytes);
        }
        pending = joined.length ? [joined] : [];
        pendingBytes = joined.length;
      }
      if (size !== undefined && total !== size) throw new SizeMismatchError(size, total);
      // An empty file is one empty chunk: seq 0 is what says "a file is stored here".
      if (pendingBytes > 0 || seq === 0) await write(Buffer.concat(pending, pendingBytes));
      await this.sql.transaction(async (tx) => {
        await this.sql.run("DELETE FROM file_chunks WHERE file_key = $1", [key], tx);
        const moved = await this.sql.rows("UPDATE file_chunks SET file_key = $1 WHERE file_key = $2 RETURNING seq", [key, partialKey], tx);
        // removeAbandoned took chunks of a put that ran longer than it allows: keep nothing rather than a file with holes.
        if (moved.length !== seq) throw new Error(`chunks of an upload were removed while it ran (${moved.length} of ${seq} left)`);
      });
    } catch (error) {
      await this.sql.run("DELETE FROM file_chunks WHERE file_key = $1", [partialKey]).catch(() => undefined);
      throw error;
    }
  }

  async get(key: string): Promise<Readable | undefined> {
    const first = await this.sql.one<{ data: Buffer }>("SELECT data FROM file_chunks WHERE file_key = $1 AND seq = 0", [key]);
    if (!first) return undefined;
    const sql = this.sql;
    return Readable.from(
      (async function* () {
        yield first.data;
        for (let seq = 1; ; seq++) {
          const row = await sql.one<{ data: Buffer }>("SELECT data FROM file_chunks WHERE file_key = $1 AND seq = $2", [key, seq]);
          if (!row) return;
          yield row.data;
        }
      })(),
      { objectMode: false },
    );
  }

  async delete(key: string): Promise<void> {
    await this.sql.run("DELETE FROM file_chunks WHERE file_key = $1", [key]);
  }

  async removeAbandoned(before: Date): Promise<number> {
    const rows = await this.sql.rows<{ seq: number }>("DELETE FROM file_chunks WHERE file_key LIKE $1 AND created_at < $2 RETURNING seq", [
      `${PARTIAL_PREFIX}%`,
      before,
    ]);
    return rows.length;
  }

  close(): void {}
}
