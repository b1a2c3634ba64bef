import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { PayloadTooLargeError } from "@docex/kit/errors";
import type { IncomingFile } from "../domain/documents.js";
import { sniffFileType } from "../files/upload-body.js";

const EXTENSIONS: Record<string, string> = {
  "application/pdf": "pdf",
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/tiff": "tif",
  "application/xml": "xml",
  "application/zip": "isdocx",
};

/** The name of a file uploaded without one: `document.<extension of its type>`. */
export function defaultFileName(contentType: string): string {
  return `document.${EXTENSIONS[contentType] ?? "bin"}`;
}

/**
 * The base64 `content` of a JSON upload, kept like any other file. Its type is sniffed too, but a JSON upload is not
 * refused for it (clients sent arbitrary bytes here before files were kept): what no check recognises is kept as
 * application/octet-stream.
 */
export async function fileOfBytes(content: Buffer, fileName: string, maxBytes: number): Promise<IncomingFile> {
  if (content.length > maxBytes) throw new PayloadTooLargeError(`The file is larger than ${maxBytes} bytes (DOCUMENT_MAX_FILE_BYTES).`);
  return {
    size: content.length,
    sha256: createHash("sha256").update(content).digest("hex"),
    contentType: (await sniffFileType(content.subarray(0, 4_100), fileName)) ?? "application/octet-stream",
    open: () => Readable.from([content]),
  };
}

/** If-None-Match: `*`, or a list of entity tags (weak ones compare by their value). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}
