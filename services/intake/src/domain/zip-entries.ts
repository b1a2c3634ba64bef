import { Unzip, UnzipInflate, UnzipPassThrough } from "fflate";

export interface ZipLimits {
  /** Entries looked at; past them the archive is refused. */
  maxEntries: number;
  /** Bytes one entry may unpack to. */
  maxEntryBytes: number;
  /** Bytes all entries together may unpack to. */
  maxTotalBytes: number;
}

export interface ZipEntry {
  name: string;
  content: Buffer;
}

export class ZipRefusedError extends Error {}

/**
 * The files of a ZIP whose names `wanted` accepts, unpacked within `limits` (a ZIP bomb is refused, whatever its
 * headers claim): the archive is fed in small slices, so one slice never inflates to more than about 4 MiB, and the
 * bytes each entry actually yields are counted as they come.
 */
export function unpackZip(archive: Uint8Array, wanted: (name: string) => boolean, limits: ZipLimits): ZipEntry[] {
  const entries: ZipEntry[] = [];
  let seen = 0;
  let total = 0;
  let refusal: string | undefined;
  const unzip = new Unzip((file) => {
    if (refusal) return;
    seen += 1;
    if (seen > limits.maxEntries) {
      refusal = `more than ${limits.maxEntries} entries`;
      return;
    }
    if (file.name.endsWith("/") || !wanted(file.name)) return;
    const parts: Buffer[] = [];
    let size = 0;
    file.ondata = (error, chunk, final) => {
      if (refusal) return;
      if (error) {
        refusal = `entry ${file.name} cannot be unpacked`;
        return;
      }
      size += chunk.length;
      total += chunk.length;
      if (size > limits.maxEntryBytes || total > limits.maxTotalBytes) {
        refusal =
          size > limits.maxEntryBytes
            ? `entry ${file.name} unpacks to more than ${limits.maxEntryBytes} bytes`
            : `unpacks to more than ${limits.maxTotalBytes} bytes`;
        file.terminate();
        return;
      }
      parts.push(Buffer.from(chunk));
      if (final) entries.push({ name: file.name, content: Buffer.concat(parts) });
    };
    try {
      file.start();
    } catch {
      // A compression method other than stored or deflate: the entry is left out.
    }
  });
  unzip.register(UnzipInflate);
  unzip.register(UnzipPassThrough);
  const SLICE = 4 * 1024;
  try {
    for (let offset = 0; offset < archive.length && !refusal; offset += SLICE) {
      unzip.push(archive.subarray(offset, offset + SLICE), offset + SLICE >= archive.length);
    }
  } catch {
    throw new ZipRefusedError("the archive is damaged");
  }
  if (refusal) throw new ZipRefusedError(refusal);
  return entries;
}
