import { type Readable, Transform } from "node:stream";

/** Bytes kept under a key (the document id); where they live is the backend's business. */
export interface FileStore {
  /** "postgres" | "s3": for logs and the README's table. */
  readonly kind: string;
  /**
   * Stores `size` bytes read from `content` under `key`, replacing what was there. On any failure (the stream
   * errors, ends early or runs long, the backend fails) nothing readable stays under `key`.
   */
  put(key: string, content: Readable, size: number): Promise<void>;
  /** The bytes under `key` as a stream, read as it is consumed; undefined when nothing is stored there. */
  get(key: string): Promise<Readable | undefined>;
  /** Removes the bytes under `key`; a key with nothing stored is fine. */
  delete(key: string): Promise<void>;
  close(): void;
}

/** Thrown by put when the stream did not hold the announced number of bytes. */
export class SizeMismatchError extends Error {
  constructor(expected: number, actual: number) {
    super(`expected ${expected} bytes, read ${actual}`);
  }
}

/** Passes `content` through while it holds exactly `size` bytes; fails the stream as soon as it cannot. */
export function exactly(content: Readable, size: number): Readable {
  let seen = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > size) callback(new SizeMismatchError(size, seen));
      else callback(null, chunk);
    },
    flush(callback) {
      callback(seen === size ? null : new SizeMismatchError(size, seen));
    },
  });
  content.on("error", (error) => meter.destroy(error));
  return content.pipe(meter);
}
