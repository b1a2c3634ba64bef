import { serviceConfigSchema } from "@docex/kit";
import { z } from "zod";

const milliseconds = (fallback: number, max = 600_000) => z.coerce.number().int().min(1).max(max).default(fallback);

export const configSchema = serviceConfigSchema("extraction").extend({
  /** Reading processes side by side; each reads one file at a time. */
  EXTRACTION_WORKERS: z.coerce.number().int().min(1).max(32).default(1),
  /** A file still being read after this long is abandoned (its process group is killed): extraction_failed. */
  EXTRACTION_TIMEOUT_MS: milliseconds(60_000),
  /**
   * Memory one reading process may take beyond what it holds once started (heap, decoded buffers, its OCR programs),
   * capped by the operating system and watched; a file needing more ends its reader, not the service.
   */
  EXTRACTION_MAX_MEMORY_MB: z.coerce.number().int().min(64).max(8_192).default(384),
  /** Reads of one file started before it is given up with extraction_failed (a file that stops the service each time). */
  EXTRACTION_MAX_READS: z.coerce.number().int().min(1).max(20).default(3),
  /** PDF pages read from the text layer. */
  EXTRACTION_MAX_PAGES: z.coerce.number().int().min(1).max(1_000).default(20),
  /** Pages rasterized and OCRed. */
  EXTRACTION_OCR_PAGES: z.coerce.number().int().min(0).max(50).default(3),
  /** Time one OCR run (rasterize + tesseract over the pages) may take. */
  EXTRACTION_OCR_TIMEOUT_MS: milliseconds(30_000),
  /** Largest file read from the document service; larger files get a message instead of an extraction. */
  EXTRACTION_MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(64 * 1024 * 1024),
  /** Deadline of GetQueue and RecordExtraction. */
  EXTRACTION_DOCUMENT_DEADLINE_MS: milliseconds(5_000, 60_000),
  /** Deadline of streaming one file (ReadDocumentFile). */
  EXTRACTION_READ_DEADLINE_MS: milliseconds(60_000),
  /** Documents extracted at once by one instance (JetStream messages in flight). */
  EXTRACTION_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
});

export type ExtractionConfig = z.infer<typeof configSchema>;
