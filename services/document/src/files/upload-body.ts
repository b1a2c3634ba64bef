import { createHash, randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from "@docex/kit";
import busboy from "busboy";
import { fileTypeFromBuffer } from "file-type";

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

/** A file received and spooled to a temporary file, checked: within the limit, of an accepted type. */
export interface SpooledFile {
  path: string;
  size: number;
  sha256: string;
  contentType: string;
  /** The name the client gave, if any. */
  fileName: string | undefined;
  /** Opens the spooled bytes for the store. */
  open(): Readable;
  /** Removes the temporary file; safe to call more than once. */
  discard(): Promise<void>;
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

/** Streams bytes into a temporary file, hashing and counting them, and keeping the first ones for sniffing. */
async function spool(source: Readable, maxBytes: number): Promise<{ path: string; size: number; sha256: string; head: Buffer }> {
  const path = join(tmpdir(), `docex-upload-${randomUUID()}`);
  const hash = createHash("sha256");
  const heads: Buffer[] = [];
  let headBytes = 0;
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > maxBytes) return callback(tooLarge(maxBytes));
      hash.update(chunk);
      if (headBytes < SNIFF_BYTES) {
        heads.push(chunk.subarray(0, SNIFF_BYTES - headBytes));
        headBytes += Math.min(chunk.length, SNIFF_BYTES - headBytes);
      }
      callback(null, chunk);
    },
  });
  try {
    await pipeline(source, meter, createWriteStream(path));
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
  return { path, size, sha256: hash.digest("hex"), head: Buffer.concat(heads) };
}

async function checked(spooled: Awaited<ReturnType<typeof spool>>, fileName: string | undefined): Promise<SpooledFile> {
  const discard = () => rm(spooled.path, { force: true });
  const contentType = spooled.size === 0 ? undefined : await sniffFileType(spooled.head, fileName);
  if (!contentType) {
    await discard();
    throw unsupported();
  }
  return {
    path: spooled.path,
    size: spooled.size,
    sha256: spooled.sha256,
    contentType,
    fileName,
    open: () => createReadStream(spooled.path),
    discard,
  };
}

/** A raw body: its declared type must be one of RAW_UPLOAD_TYPES (else 415 unread); the bytes decide the kept type. */
export async function receiveRawFile(
  req: Readable & { headers: Record<string, string | string[] | undefined> },
  maxBytes: number,
  queryFileName: string | undefined,
): Promise<SpooledFile> {
  const declared = String(req.headers["content-type"] ?? "")
    .split(";")[0]!
    .trim()
    .toLowerCase();
  if (!(RAW_UPLOAD_TYPES as readonly string[]).includes(declared)) throw unsupported();
  const length = Number(req.headers["content-length"] ?? Number.NaN);
  if (Number.isFinite(length) && length > maxBytes) throw tooLarge(maxBytes);
  const fileName = queryFileName || fileNameOfDisposition(req.headers["content-disposition"]);
  return checked(await spool(req, maxBytes), fileName);
}

/** multipart/form-data: part `file`, fields `file_name`, `annotations` (JSON text) and `confidence`. */
export function receiveMultipartFile(
  req: Readable & { headers: Record<string, string | string[] | undefined> },
  maxBytes: number,
): Promise<{ file: SpooledFile; fields: UploadFields }> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers as busboy.BusboyConfig["headers"],
        limits: { files: 1, fields: 10, fieldSize: 1024 * 1024, parts: 12, fileSize: maxBytes },
      });
    } catch {
      reject(new ValidationError("The multipart/form-data body has no boundary.", [], "invalid_multipart"));
      return;
    }
    const fields: UploadFields = {};
    let fileWork: Promise<{ spooled: Awaited<ReturnType<typeof spool>>; name: string | undefined }> | undefined;
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      req.resume();
      void fileWork?.then(({ spooled }) => rm(spooled.path, { force: true })).catch(() => undefined);
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
      stream.on("limit", () => stream.destroy(tooLarge(maxBytes)));
      fileWork = spool(stream, maxBytes).then((spooled) => ({ spooled, name: info.filename || undefined }));
      fileWork.catch(fail);
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
      fileWork
        .then((received) => checked(received.spooled, fields.fileName || received.name))
        .then((file) => (failed ? file.discard() : resolve({ file, fields })))
        .catch(fail);
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
