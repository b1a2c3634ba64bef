import { createHash, randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { finished, type Readable, Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from "@docex/kit/errors";
import busboy from "busboy";
import { fileTypeFromBuffer } from "file-type";
import type { FileStore } from "./file-store.js";

/** What a raw body may declare; the bytes decide the type kept, these only let the body in. */
export const RAW_UPLOAD_TYPES = [
  "application/pdf",
  "image/png",
  "image/jpeg",
  "image/tiff",
  "application/xml",
  "text/xml",
  "application/zip",
  "application/octet-stream",
] as const;

/** The media types a kept file may have, as sniffed from its first bytes. */
export const KEPT_FILE_TYPES = ["application/pdf", "image/png", "image/jpeg", "image/tiff", "application/xml", "application/zip"] as const;

/** Where a received file goes: the store, under the new document's id, within the size limit. */
export interface UploadSink {
  store: FileStore;
  /** The new document's id. */
  key: string;
  maxBytes: number;
  /**
   * Where a file is counted before a store that needs its length (`takesUnknownLength` false) gets it: at most one
   * file per upload in flight, so the directory must hold the concurrent uploads' bound times maxBytes.
   */
  spoolDir: string;
}

/** A file received, checked (within the limit, of an accepted type) and kept in the store under the sink's key. */
export interface KeptUpload {
  key: string;
  size: number;
  sha256: string;
  contentType: string;
  /** The name the client gave, if any. */
  fileName: string | undefined;
}

export interface UploadFields {
  fileName?: string;
  annotations?: string;
  confidence?: string;
}

const SNIFF_BYTES = 4_100;

const tooLarge = (max: number) => new PayloadTooLargeError(`The file is larger than ${max} bytes (DOCUMENT_MAX_FILE_BYTES).`);
const unsupported = () =>
  new UnsupportedMediaTypeError(
    "The file is not a PDF, PNG, JPEG, TIFF or XML document (judged by its bytes), nor an .isdocx archive; a JSON body " +
      "(with `file_name`), multipart/form-data (part `file`) or a raw body of one of those types is accepted.",
  );

/**
 * The type of a file by its first bytes: PDF, PNG, JPEG, TIFF by their magic numbers; XML by its start (an optional
 * byte order mark and white space, then `<?xml` or an element); a zip only as an .isdocx (ISDOC in a zip). Undefined
 * for anything else.
 */
export async function sniffFileType(head: Buffer, fileName: string | undefined): Promise<string | undefined> {
  if (looksLikeXml(head)) return "application/xml";
  const detected = await fileTypeFromBuffer(head);
  if (!detected) return undefined;
  if (detected.mime === "application/zip") return /\.isdocx$/i.test(fileName ?? "") ? "application/zip" : undefined;
  return (KEPT_FILE_TYPES as readonly string[]).includes(detected.mime) ? detected.mime : undefined;
}

function looksLikeXml(head: Buffer): boolean {
  let text = head.subarray(0, 512).toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  text = text.replace(/^[\s]+/, "");
  // HTML is not an invoice format, however much it looks like XML.
  if (/^<(!doctype\s+)?html[\s>]/i.test(text)) return false;
  return text.startsWith("<?xml") || /^<!(--|DOCTYPE\s)/.test(text) || /^<[A-Za-z_][\w.:-]*[\s/>]/.test(text);
}

/**
 * Counts and hashes the bytes passing through, fails the stream the moment they pass `maxBytes` (413), and keeps the
 * first SNIFF_BYTES for the type check (`head`, settled once they are in or the stream ended).
 */
class UploadMeter extends Transform {
  size = 0;
  readonly head: Promise<Buffer>;
  private readonly hash = createHash("sha256");
  private readonly headParts: Buffer[] = [];
  private headBytes = 0;
  private settleHead: (head: Buffer) => void = () => undefined;

  constructor(private readonly maxBytes: number) {
    super();
    this.head = new Promise((resolve, reject) => {
      this.settleHead = resolve;
      this.on("error", reject);
    });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      callback(tooLarge(this.maxBytes));
      return;
    }
    this.hash.update(chunk);
    if (this.headBytes < SNIFF_BYTES) {
      const part = chunk.subarray(0, SNIFF_BYTES - this.headBytes);
      this.headParts.push(part);
      this.headBytes += part.length;
      if (this.headBytes >= SNIFF_BYTES) this.settleHead(Buffer.concat(this.headParts));
    }
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.settleHead(Buffer.concat(this.headParts));
    callback();
  }

  /** Once the stream has ended. */
  sha256(): string {
    return this.hash.digest("hex");
  }
}

const cutShort = () =>
  new ValidationError("The request body ended before the file did (the connection was closed).", [], "upload_incomplete");

/**
 * Streams `source` into the store under the sink's key: the type is judged from the first bytes before the store is
 * touched (415), the size is counted as the bytes pass (413 the moment it is over), the SHA-256 taken on the way.
 * With a store that needs the length and none declared, the bytes are counted in a temporary file first. On any
 * failure nothing stays in the store or the spool; `source` is left unread for the caller to drain.
 */
async function keep(source: Readable, sink: UploadSink, fileName: string | undefined, declaredSize?: number): Promise<KeptUpload> {
  const meter = new UploadMeter(sink.maxBytes);
  // A client that goes away mid-body ends nothing: without this the store would wait for the rest forever.
  finished(source, (error) => {
    if (error && !meter.destroyed) meter.destroy(error instanceof PayloadTooLargeError ? error : cutShort());
  });
  source.pipe(meter);
  const contentType = await meter.head.then((head) => (head.length ? sniffFileType(head, fileName) : undefined));
  if (!contentType) {
    source.unpipe(meter);
    meter.destroy();
    throw unsupported();
  }
  if (declaredSize !== undefined || sink.store.takesUnknownLength) await sink.store.put(sink.key, meter, declaredSize);
  else await spoolThenKeep(meter, sink);
  return { key: sink.key, size: meter.size, sha256: meter.sha256(), contentType, fileName };
}

async function spoolThenKeep(meter: UploadMeter, sink: UploadSink): Promise<void> {
  const path = join(sink.spoolDir, `docex-upload-${randomUUID()}`);
  try {
    await pipeline(meter, createWriteStream(path, { flags: "wx", mode: 0o600 }));
    await sink.store.put(sink.key, createReadStream(path), meter.size);
  } finally {
    await rm(path, { force: true });
  }
}

/** A raw body: its declared type must be one of RAW_UPLOAD_TYPES (else 415 unread); the bytes decide the kept type. */
export async function receiveRawFile(
  req: Readable & { headers: Record<string, string | string[] | undefined> },
  sink: UploadSink,
  queryFileName: string | undefined,
): Promise<KeptUpload> {
  const declared = String(req.headers["content-type"] ?? "")
    .split(";")[0]!
    .trim()
    .toLowerCase();
  if (!(RAW_UPLOAD_TYPES as readonly string[]).includes(declared)) throw unsupported();
  const length = Number(req.headers["content-length"] ?? Number.NaN);
  if (Number.isFinite(length) && length > sink.maxBytes) throw tooLarge(sink.maxBytes);
  const fileName = queryFileName || fileNameOfDisposition(req.headers["content-disposition"]);
  return keep(req, sink, fileName, Number.isSafeInteger(length) && length >= 0 ? length : undefined);
}

/**
 * multipart/form-data: part `file`, fields `file_name`, `annotations` (JSON text) and `confidence`. The file is kept as
 * its part arrives (fields after it are read only then); if the body then turns out bad, the kept bytes are removed.
 */
export function receiveMultipartFile(
  req: Readable & { headers: Record<string, string | string[] | undefined> },
  sink: UploadSink,
): Promise<{ file: KeptUpload; fields: UploadFields }> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers as busboy.BusboyConfig["headers"],
        limits: { files: 1, fields: 10, fieldSize: 1024 * 1024, parts: 12, fileSize: sink.maxBytes },
      });
    } catch {
      reject(new ValidationError("The multipart/form-data body has no boundary.", [], "invalid_multipart"));
      return;
    }
    const fields: UploadFields = {};
    let fileWork: Promise<KeptUpload> | undefined;
    let failed = false;
    const removeKept = () => fileWork?.then(() => sink.store.delete(sink.key)).catch(() => undefined);
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      req.resume();
      void removeKept();
      reject(error);
    };
    parser.on("field", (name, value, info) => {
      if (info.valueTruncated) return fail(new ValidationError(`The field ${name} is too long.`, [{ path: name, message: "is too long" }]));
      if (name === "file_name") fields.fileName = value;
      else if (name === "annotations") fields.annotations = value;
      else if (name === "confidence") fields.confidence = value;
    });
    parser.on("file", (name, stream, info) => {
      if (name !== "file" || fileWork) {
        stream.resume();
        return;
      }
      stream.on("limit", () => stream.destroy(tooLarge(sink.maxBytes)));
      // The type check may need the name (.isdocx): a `file_name` field sent before the part counts.
      fileWork = keep(stream, sink, fields.fileName || info.filename || undefined);
      fileWork.catch((error: unknown) => {
        stream.resume();
        fail(error);
      });
    });
    parser.on("error", (error: unknown) =>
      fail(new ValidationError(`The multipart/form-data body is malformed: ${String(error)}`, [], "invalid_multipart")),
    );
    parser.on("close", () => {
      if (failed) return;
      if (!fileWork) {
        fail(
          new ValidationError("A multipart upload needs a part named `file`.", [{ path: "file", message: "is required" }], "file_missing"),
        );
        return;
      }
      const work = fileWork;
      work
        .then((kept) => {
          if (failed) return removeKept();
          const named = fields.fileName || kept.fileName;
          resolve({ file: { ...kept, fileName: named }, fields });
        })
        .catch(() => undefined);
    });
    req.pipe(parser);
  });
}

/** `attachment; filename="a.pdf"` or `filename*=UTF-8''a%C3%A1.pdf`. */
export function fileNameOfDisposition(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(value);
  if (extended?.[2]) {
    try {
      return decodeURIComponent(extended[2].trim());
    } catch {
      // fall back to the plain parameter
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(value);
  const name = plain?.[1]?.replace(/\\(.)/g, "$1") ?? plain?.[2]?.trim();
  return name || undefined;
}

/** The Content-Disposition of a download: the name in both forms (ASCII fallback and RFC 5987 UTF-8). */
export function contentDispositionOf(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
