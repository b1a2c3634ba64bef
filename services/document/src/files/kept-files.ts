import type { Readable } from "node:stream";
import { NotFoundError } from "@docex/kit/errors";
import type { Logger } from "@docex/kit/logger";
import { PeriodicSweep } from "../domain/periodic-sweep.js";
import type { StoredDocument } from "../domain/records.js";
import type { DocumentStore } from "../store/document-store.js";
import type { FileStore } from "./file-store.js";

export interface OpenedFile {
  content: Readable;
  contentType: string;
  size: number;
}

export interface RetentionSettings {
  /** A deleted document's file is purged this long after the deletion. */
  retentionMs: number;
  /** How often the sweep looks for files to purge. */
  sweepIntervalMs: number;
  /** Files purged per batch; the sweep goes on until none is due. */
  batchSize: number;
}

/**
 * A put still unfinished this long after it began was cut short by a crash (an upload is bounded by the HTTP server's
 * request timeout, minutes): the sweep removes what it wrote. A put that did run this long fails rather than keep holes.
 */
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

const fileNotFound = (id: string) => new NotFoundError(`Document ${id} has no file.`, "file_not_found");

/** The documents' kept files: reading them back, and purging those of documents deleted longer than the retention ago. */
export class KeptFiles {
  private readonly sweep: PeriodicSweep;

  constructor(
    readonly store: FileStore,
    private readonly documents: DocumentStore,
    private readonly logger: Logger,
    private readonly retention: RetentionSettings,
  ) {
    this.sweep = new PeriodicSweep(
      retention.sweepIntervalMs,
      async () => {
        const purged = await this.purgeExpired();
        if (purged) this.logger.info({ purged }, "purged the files of deleted documents");
        const abandoned = await this.store.removeAbandoned(new Date(Date.now() - ABANDONED_AFTER_MS));
        if (abandoned) this.logger.info({ pieces: abandoned }, "removed what interrupted uploads left in the file store");
      },
      (error) => this.logger.warn({ err: error }, "file retention sweep failed"),
    );
  }

  /** The file of a document (the caller has checked access); 404 file_not_found when it has none, or none any more. */
  async open(document: StoredDocument): Promise<OpenedFile> {
    if (document.fileSize === null || document.fileContentType === null) throw fileNotFound(document.id);
    const content = await this.store.get(document.id);
    if (!content) throw fileNotFound(document.id);
    return { content, contentType: document.fileContentType, size: document.fileSize };
  }

  /**
   * Removes the files of documents that are gone (their queue was deleted). A failure is logged and leaves bytes
   * nobody can reach (see DECISIONS.md, "orphaned bytes"); it never fails the deletion that committed.
   */
  async discard(documentIds: string[]): Promise<void> {
    for (const id of documentIds) {
      await this.store.delete(id).catch((error: unknown) => this.logger.warn({ err: error, document_id: id }, "could not remove a file"));
    }
  }

  /** Purges the files of documents deleted before `now - retention`; answers how many. */
  async purgeExpired(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - this.retention.retentionMs);
    let purged = 0;
    for (;;) {
      const ids = await this.documents.filesToPurge(before, this.retention.batchSize);
      for (const id of ids) {
        // The row first: a crash in between leaves bytes nobody can reach (and the next purge of nothing), never a
        // document that claims a file the store no longer has.
        await this.documents.forgetFile(id);
        await this.store.delete(id);
        purged++;
      }
      if (ids.length < this.retention.batchSize) return purged;
    }
  }

  start(): void {
    this.sweep.start();
  }

  async stop(): Promise<void> {
    await this.sweep.stop();
    this.store.close();
  }
}
