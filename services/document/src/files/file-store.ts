import { type Readable, Transform } from "node:stream";

/** Bytes kept under a key (the document id); where they live is the backend's business. */
export interface FileStore {
  /** "postgres" | "s3": for logs and the README's table. */
  readonly kind: string;
  /**
   * Whether put takes a stream whose length nobody knows yet (a multipart part, a chunked body). A store that does
   * not needs the bytes counted first: the upload spools them to a temporary file (see DECISIONS.md).
   */
  readonly takesUnknownLength: boolean;
  /**
   * Stores the bytes read from `content` under `key`, replacing what was there: exactly `size` of them when given,
   * else all the stream holds (only where `takesUnknownLength`). On any failure (the stream errors, ends early or
   * runs long, the backend fails) nothing readable stays under `key`.
   */
  put(key: string, content: Readable, size?: number): Promise<void>;
  /** The bytes under `key` as a stream, read as it is consumed; undefined when nothing is stored there. */
  get(key: string): Promise<Readable | undefined>;
  /** Removes the bytes under `key`; a key with nothing stored is fine. */
  delete(key: string): Promise<void>;
  /**
   * Removes what puts cut short by a crash left behind (never readable under any key), begun before `before`;
   * answers how many pieces went. A store whose writes leave nothing behind answers 0.
   */
  removeAbandoned(before: Date): Promise<number>;
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
