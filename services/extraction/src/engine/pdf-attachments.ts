import { inflateRawSync, inflateSync } from "node:zlib";
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, type PDFObject, PDFRawStream, PDFRef, PDFString } from "pdf-lib";

export interface PdfAttachment {
  name: string;
  content: Uint8Array;
}

export interface AttachmentsRead {
  attachments: PdfAttachment[];
  /** Why an attachment whose name was wanted was not read (too large, an unknown filter, damaged). */
  problems: string[];
}

/** Name-tree nodes walked at most, and how deep: a real invoice has one or two attachments. */
const MAX_NODES = 1_000;
const MAX_DEPTH = 10;

/**
 * Reads the embedded files of a PDF whose names `wanted` accepts, and only those: names are looked up in the
 * catalog's EmbeddedFiles name tree before a byte is inflated, the declared size (`/Params /Size`) is checked, and
 * each is inflated with a cap of `maxBytes` (zlib stops there). pdf.js's getAttachments() inflates every embedded
 * file, whatever its name or size, before answering: a 255 KB PDF took a reader to 881 MB. Parsed by pdf-lib, which
 * reads the object structure without decoding any content stream.
 */
export async function readAttachments(bytes: Uint8Array, wanted: RegExp, maxBytes: number): Promise<AttachmentsRead> {
  let document: PDFDocument;
  try {
    document = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
  } catch {
    // pdf.js reads what pdf-lib cannot; the file is then read without its attachments.
    return { attachments: [], problems: [] };
  }
  const names = document.catalog.lookupMaybe(PDFName.of("Names"), PDFDict);
  const tree = names?.lookupMaybe(PDFName.of("EmbeddedFiles"), PDFDict);
  if (!tree) return { attachments: [], problems: [] };
  const read: AttachmentsRead = { attachments: [], problems: [] };
  let nodes = 0;
  const walk = (node: PDFDict, depth: number) => {
    if (depth > MAX_DEPTH || ++nodes > MAX_NODES) return;
    const pairs = node.lookupMaybe(PDFName.of("Names"), PDFArray);
    if (pairs) {
      for (let index = 0; index + 1 < pairs.size(); index += 2) {
        const spec = pairs.lookup(index + 1);
        if (spec instanceof PDFDict) readSpec(spec);
      }
    }
    const kids = node.lookupMaybe(PDFName.of("Kids"), PDFArray);
    for (let index = 0; kids && index < kids.size(); index += 1) {
      const kid = kids.lookup(index);
      if (kid instanceof PDFDict) walk(kid, depth + 1);
    }
  };
  const readSpec = (spec: PDFDict) => {
    const name = textOf(spec.lookup(PDFName.of("UF"))) ?? textOf(spec.lookup(PDFName.of("F")));
    if (!name) return;
    const fileName = name.split(/[\\/]/).pop() ?? name;
    if (!wanted.test(fileName)) return;
    const files = spec.lookup(PDFName.of("EF"));
    if (!(files instanceof PDFDict)) return;
    const reference = files.get(PDFName.of("UF")) ?? files.get(PDFName.of("F"));
    const stream = reference instanceof PDFRef ? document.context.lookup(reference) : reference;
    if (!(stream instanceof PDFRawStream)) return;
    const declared = stream.dict.lookup(PDFName.of("Params"));
    const size = declared instanceof PDFDict ? declared.lookup(PDFName.of("Size")) : undefined;
    if (size instanceof PDFNumber && size.asNumber() > maxBytes) {
      read.problems.push(`The attached ${fileName} is larger than ${maxBytes} bytes; it was not read.`);
      return;
    }
    try {
      read.attachments.push({ name: fileName, content: decode(stream, maxBytes) });
    } catch (error) {
      read.problems.push(`The attached ${fileName} was not read: ${(error as Error).message}`);
    }
  };
  walk(tree, 0);
  return read;
}

function textOf(value: PDFObject | undefined): string | undefined {
  if (value instanceof PDFString || value instanceof PDFHexString) return value.decodeText();
  return undefined;
}

/** A stream's bytes, unfiltered (none or FlateDecode, the filters embedded e-invoices use), at most `maxBytes`. */
function decode(stream: PDFRawStream, maxBytes: number): Uint8Array {
  const filter = stream.dict.lookup(PDFName.of("Filter"));
  const filters = filter instanceof PDFName ? [filter] : filter instanceof PDFArray ? filter.asArray() : [];
  const names = filters.map((entry) => (entry instanceof PDFName ? entry.decodeText() : "?"));
  if (stream.dict.has(PDFName.of("DecodeParms"))) throw new Error("its decoding parameters are not supported");
  if (names.length === 0) {
    if (stream.contents.length > maxBytes) throw new Error(`it is larger than ${maxBytes} bytes`);
    return stream.contents;
  }
  if (names.length !== 1 || names[0] !== "FlateDecode") throw new Error(`its filter ${names.join(", ")} is not supported`);
  try {
    return tryInflate(stream.contents, maxBytes);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE")
      throw new Error(`it inflates to more than ${maxBytes} bytes (a decompression bomb?)`);
    throw new Error("it is damaged");
  }
}

function tryInflate(contents: Uint8Array, maxBytes: number): Uint8Array {
  try {
    return inflateSync(contents, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw error;
    // Some writers leave out the zlib header.
    return inflateRawSync(contents, { maxOutputLength: maxBytes });
  }
}
