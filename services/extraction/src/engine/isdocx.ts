import { Unzip, UnzipInflate } from "fflate";
import { UnreadableFileError } from "./types.js";

const MAX_ENTRIES = 200;

/**
 * The ISDOC document inside an .isdocx (a zip with the .isdoc file, manifest.xml and attachments). Entries
 * are inflated as a stream and counted as they come, so a zip bomb stops at `maxBytes` whatever its
 * headers claim; only the .isdoc entry is inflated at all.
 */
export function isdocOfIsdocx(bytes: Uint8Array, maxBytes: number): Uint8Array {
  const unzip = new Unzip();
  unzip.register(UnzipInflate);
  let entries = 0;
  let found: Uint8Array | undefined;
  let problem: string | undefined;
  unzip.onfile = (file) => {
    entries += 1;
    if (entries > MAX_ENTRIES) {
      problem = `The .isdocx archive has more than ${MAX_ENTRIES} entries.`;
      return;
    }
    if (found || problem || !/\.isdoc$/i.test(file.name) || file.name.includes("/")) return;
    if (file.originalSize !== undefined && file.originalSize > maxBytes) {
      problem = `The ISDOC document in the archive would be larger than ${maxBytes} bytes.`;
      return;
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    file.ondata = (error, chunk, final) => {
      if (problem) return;
      if (error) {
        problem = `The .isdocx archive is damaged: ${error.message}`;
        return;
      }
      size += chunk.length;
      if (size > maxBytes) {
        problem = `The ISDOC document in the archive inflates to more than ${maxBytes} bytes (a zip bomb?); it was not read.`;
        file.terminate();
        return;
      }
      chunks.push(chunk);
      if (final) {
        const whole = new Uint8Array(size);
        let at = 0;
        for (const part of chunks) {
          whole.set(part, at);
          at += part.length;
        }
        found = whole;
      }
    };
    file.start();
  };
  try {
    // Pushed in slices so a runaway entry is stopped between them rather than after the whole archive.
    const slice = 64 * 1024;
    for (let at = 0; at < bytes.length && !problem && !found; at += slice) {
      unzip.push(bytes.subarray(at, Math.min(bytes.length, at + slice)), at + slice >= bytes.length);
    }
  } catch (error) {
    if (!problem) problem = `The .isdocx archive is damaged: ${(error as Error).message}`;
  }
  if (problem) throw new UnreadableFileError(problem);
  if (!found) throw new UnreadableFileError("The .isdocx archive holds no .isdoc document.");
  return found;
}
