import os from "node:os";
import { milliseconds, serviceConfigSchema } from "@docex/kit/config";
import { z } from "zod";
import { MIN_CONFIDENCE } from "./engine/confidence.js";

export const configSchema = serviceConfigSchema("extraction").extend({
  /**
   * Reading processes for scans (OCR), each reading one file at a time; one more reader is kept for text (e-invoices
   * and PDFs with a text layer), so a text file never waits behind OCR. By default one per core (at most 8).
   * @default the cores (at most 8)
   */
  EXTRACTION_WORKERS: z.coerce.number().int().min(1).max(32).default(Math.min(os.availableParallelism(), 8)),
  /** A file still being read after this long is abandoned (its process group is killed): extraction_failed. */
  EXTRACTION_TIMEOUT_MS: milliseconds(60_000, { min: 1, max: 600_000 }),
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
  EXTRACTION_OCR_PAGES: z.coerce.number().int().min(0).max(50).default(10),
  /**
   * A value read from a page (text layer or OCR) with a confidence below this, in %, is left empty and named in an
   * info message instead; 0 fills in every value read. The default is fitted on labelled invoices (engine/confidence.ts).
   */
  EXTRACTION_MIN_CONFIDENCE: z.coerce.number().int().min(0).max(100).default(MIN_CONFIDENCE),
  /** Time one OCR run (rasterize + tesseract over the pages) may take. */
  EXTRACTION_OCR_TIMEOUT_MS: milliseconds(30_000, { min: 1, max: 600_000 }),
  /** Largest file read from the document service; larger files get a message instead of an extraction. */
  EXTRACTION_MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(64 * 1024 * 1024),
  /** Deadline of GetQueue and RecordExtraction. */
  EXTRACTION_DOCUMENT_DEADLINE_MS: milliseconds(5_000, { min: 1, max: 60_000 }),
  /** Deadline of streaming one file (ReadDocumentFile). */
  EXTRACTION_READ_DEADLINE_MS: milliseconds(60_000, { min: 1, max: 600_000 }),
  /**
   * Documents one instance holds at once (JetStream messages in flight), waiting for a reader in the read scheduler's
   * lanes: text before scans, organizations in turn. Fairness reaches as far as this window: one organization's
   * backlog beyond it is still in the stream, ahead of a later file of another organization.
   */
  EXTRACTION_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(1_000),
  /**
   * Reading processes of the pages API (listing pages, reading a page's words, drawing a page), apart from extraction's,
   * so that a backlog of scans never holds up a page a person is looking at.
   */
  EXTRACTION_PAGE_READERS: z.coerce.number().int().min(1).max(8).default(1),
  /** A page still being drawn or read after this long is given up (its reader's process group is killed): 422. */
  EXTRACTION_PAGE_TIMEOUT_MS: milliseconds(15_000, { min: 1, max: 600_000 }),
  /** Deadline of a CheckPermission call (the pages API). */
  EXTRACTION_MEMBERSHIP_DEADLINE_MS: milliseconds(1_000, { min: 1, max: 60_000 }),
  /** How long a permission answer is reused; membership.changed evicts it sooner. */
  EXTRACTION_PERMISSION_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(30_000),
});

export type ExtractionConfig = z.infer<typeof configSchema>;
