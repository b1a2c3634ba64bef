import { Readable } from "node:stream";
import type { Sql } from "@docex/kit";
import { type FileStore, SizeMismatchError } from "./file-store.js";

/** The default chunk: small enough for one bytea row and one gRPC message, large enough to keep row counts low. */
export const POSTGRES_CHUNK_BYTES = 256 * 1024;

/**
 * Files in the document service's own database (table file_chunks), so a fresh install and a cluster of replicas need
 * nothing more. A file is written in one transaction (all of it or none) and read back one chunk per query.
 */
export class PostgresFileStore implements FileStore {
  readonly kind = "postgres";

  constructor(
    private readonly sql: Sql,
    private readonly chunkBytes = POSTGRES_CHUNK_BYTES,
  ) {}

  async put(key: string, content: Readable, size: number): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await this.sql.rows("DELETE FROM file_chunks WHERE file_key = $1 RETURNING seq", [key], tx);
      let seq = 0;
      let total = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const flush = async (final: boolean) => {
        while (pendingBytes >= this.chunkBytes || (final && (pendingBytes > 0 || seq === 0))) {
          const joined = Buffer.concat(pending, pendingBytes);
          const chunk = joined.subarray(0, this.chunkBytes);
          const rest = joined.subarray(chunk.length);
          await this.sql.rows("INSERT INTO file_chunks (file_key, seq, data) VALUES ($1, $2, $3) RETURNING seq", [key, seq++, chunk], tx);
          pending = rest.length ? [rest] : [];
          pendingBytes = rest.length;
          if (final && pendingBytes === 0) break;
        }
      };
      for await (const piece of content) {
        const buffer = Buffer.isBuffer(piece) ? piece : Buffer.from(piece as Uint8Array);
        total += buffer.length;
        if (total > size) throw new SizeMismatchError(size, total);
        pending.push(buffer);
        pendingBytes += buffer.length;
        if (pendingBytes >= this.chunkBytes) await flush(false);
      }
      if (total !== size) throw new SizeMismatchError(size, total);
      await flush(true);
    });
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
    await this.sql.rows("DELETE FROM file_chunks WHERE file_key = $1 RETURNING seq", [key]);
  }

  close(): void {}
}
