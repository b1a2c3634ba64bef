import { createHash } from "node:crypto";
import { simpleParser } from "mailparser";
import { unpackZip, ZipRefusedError } from "./zip-entries.js";

/** File names of the accepted types: PDF, PNG, JPEG, TIFF, XML (ISDOC among them) and ISDOCX. */
const ACCEPTED_NAME = /\.(pdf|png|jpe?g|tiff?|xml|isdoc|isdocx)$/i;
const ZIP_NAME = /\.zip$/i;
/** A name for an attachment that came without one, from its declared type. */
const EXTENSION_OF_TYPE: Record<string, string> = {
  "application/pdf": ".pdf",
  "image/png": ".png",
  "image/jpeg": ".jpg",
  "image/tiff": ".tiff",
  "application/xml": ".xml",
  "text/xml": ".xml",
  "application/zip": ".zip",
  "application/x-zip-compressed": ".zip",
};

export interface MailFile {
  fileName: string;
  content: Buffer;
}

export interface SkippedFile {
  file_name: string;
  reason: string;
}

/** What the intake takes from a message. */
export interface ReadMail {
  /** The From header's address, lowercase ("" when it has none). */
  from: string;
  subject: string;
  /** The Message-ID header without its angle brackets; "" when it has none. */
  messageId: string;
  /** Stands for the message in the documents' keys: its Message-ID, else its bytes (a retry sends the same bytes). */
  identity: string;
  /** Attachments of an accepted type, ZIPs' accepted entries in their place, in the message's order. */
  files: MailFile[];
  skipped: SkippedFile[];
}

export interface ReadLimits {
  maxZipEntries: number;
  maxFileBytes: number;
  maxZipUnpackedBytes: number;
}

/**
 * Parses a message and picks its files. Images embedded in the HTML body (`multipart/related`, a signature's logo) are
 * not attachments and are left out; so is anything of another type. A ZIP (other than an .isdocx, which is one
 * document) gives its accepted entries; a ZIP bomb, a damaged or nested archive is skipped with the reason.
 */
export async function readMail(raw: Buffer, limits: ReadLimits): Promise<ReadMail> {
  const parsed = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true });
  const files: MailFile[] = [];
  const skipped: SkippedFile[] = [];
  let unnamed = 0;
  for (const attachment of parsed.attachments) {
    if (attachment.related) continue;
    const declaredType = (attachment.contentType || "").toLowerCase();
    const fileName = cleanName(attachment.filename) || `attachment-${++unnamed}${EXTENSION_OF_TYPE[declaredType] ?? ""}`;
    const isZip = !/\.isdocx$/i.test(fileName) && (ZIP_NAME.test(fileName) || EXTENSION_OF_TYPE[declaredType] === ".zip");
    if (isZip) {
      try {
        const entries = unpackZip(attachment.content, (name) => ACCEPTED_NAME.test(name), {
          maxEntries: limits.maxZipEntries,
          maxEntryBytes: limits.maxFileBytes,
          maxTotalBytes: limits.maxZipUnpackedBytes,
        });
        for (const entry of entries) files.push({ fileName: cleanName(entry.name.split("/").pop()) || fileName, content: entry.content });
        if (entries.length === 0) skipped.push({ file_name: fileName, reason: "the archive holds no file of an accepted type" });
      } catch (error) {
        if (!(error instanceof ZipRefusedError)) throw error;
        skipped.push({ file_name: fileName, reason: `archive refused: ${error.message}` });
      }
      continue;
    }
    if (!ACCEPTED_NAME.test(fileName) && !(declaredType in EXTENSION_OF_TYPE)) {
      skipped.push({ file_name: fileName, reason: `not an accepted type (${declaredType || "unknown"})` });
      continue;
    }
    if (attachment.content.length > limits.maxFileBytes) {
      skipped.push({ file_name: fileName, reason: `larger than ${limits.maxFileBytes} bytes` });
      continue;
    }
    files.push({ fileName, content: attachment.content });
  }
  const messageId = (parsed.messageId ?? "").trim().replace(/^<|>$/g, "");
  return {
    from: (parsed.from?.value[0]?.address ?? "").toLowerCase(),
    subject: parsed.subject ?? "",
    messageId,
    identity: messageId ? `id:${messageId}` : `sha256:${createHash("sha256").update(raw).digest("hex")}`,
    files,
    skipped,
  };
}

/** A file name without directories or control characters, at most 255 characters. */
function cleanName(name: string | undefined): string {
  const printable = [...(name ?? "")].filter((char) => char.charCodeAt(0) >= 0x20 && char.charCodeAt(0) !== 0x7f).join("");
  return printable
    .replace(/^.*[\\/]/, "")
    .trim()
    .slice(0, 255);
}
