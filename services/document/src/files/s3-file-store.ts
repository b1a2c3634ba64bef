import type { Readable } from "node:stream";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import { exactly, type FileStore } from "./file-store.js";

/** When a failed upload's leftover is looked for (and deleted) again, each wait after the one before. */
const LEFTOVER_CHECKS_MS = [0, 100, 300, 600];

/** `s3://bucket/prefix`: the bucket, and the key prefix without slashes at either end ("" for none). */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const parsed = new URL(url);
  if (parsed.protocol !== "s3:" || !parsed.hostname) throw new Error(`FILE_STORE_URL must look like s3://bucket/prefix, not ${url}`);
  return { bucket: parsed.hostname, prefix: decodeURIComponent(parsed.pathname).replace(/^\/+|\/+$/g, "") };
}

/**
 * Files as objects of an S3-compatible store, one object per file under `prefix/`. A PutObject with the whole
 * length is atomic: the object appears complete or not at all. The endpoint, region and credentials come from the
 * usual AWS variables (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, ...); a custom
 * endpoint is addressed path-style, as S3-compatible servers expect.
 */
export class S3FileStore implements FileStore {
  readonly kind = "s3";
  /** PutObject needs the length first; without @aws-sdk/lib-storage's multipart upload, bytes of unknown length are counted first. */
  readonly takesUnknownLength = false;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(url: string, config: S3ClientConfig = {}, env: NodeJS.ProcessEnv = process.env) {
    ({ bucket: this.bucket, prefix: this.prefix } = parseS3Url(url));
    const endpoint = env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
    this.client = new S3Client({
      region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? "us-east-1",
      ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
      // Checksums only where S3 requires them: many S3-compatible servers reject the SDK's default trailing
      // checksums (aws-chunked); the SHA-256 of every file is kept with its document anyway.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
      ...config,
    });
  }

  private keyOf(key: string): string {
    return this.prefix ? `${this.prefix}/${key}` : key;
  }

  async put(key: string, content: Readable, size?: number): Promise<void> {
    if (size === undefined) throw new Error("the S3 store needs the length of what it stores (takesUnknownLength is false)");
    // A body that fails (or holds another number of bytes than announced) aborts the request: S3 then keeps nothing.
    const abort = new AbortController();
    let failure: unknown;
    const body = exactly(content, size);
    body.on("error", (error) => {
      failure ??= error;
      abort.abort();
    });
    try {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key), Body: body, ContentLength: size }), {
        abortSignal: abort.signal,
      });
    } catch (error) {
      failure ??= error;
    }
    if (failure) {
      await this.removeLeftover(key);
      throw failure;
    }
  }

  /**
   * S3 itself keeps nothing of a failed PutObject; some S3-compatible servers keep what arrived, and may write it
   * after the client gave up (the aborted request is still being read). Deletes it, and again if it reappears
   * within about a second. Best effort: the failure that led here is what the caller hears of.
   */
  private async removeLeftover(key: string): Promise<void> {
    for (const waitMs of LEFTOVER_CHECKS_MS) {
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      const present = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) })).then(
        () => true,
        () => false,
      );
      if (present) await this.delete(key).catch(() => undefined);
    }
  }

  async get(key: string): Promise<Readable | undefined> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) }));
      return object.Body as Readable;
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === "NoSuchKey") return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) }));
  }

  /** A PutObject is atomic, and a failed one's leftover is removed then (removeLeftover): nothing to sweep. */
  async removeAbandoned(): Promise<number> {
    return 0;
  }

  close(): void {
    this.client.destroy();
  }
}
