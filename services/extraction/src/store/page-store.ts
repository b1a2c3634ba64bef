import type { Sql } from "@docex/kit/db";
import type { PageRead, PageWord } from "../engine/types.js";

export interface PageList {
  pages: { page: number; width: number; height: number }[];
  /** Why the pages cannot be shown, when a reader stopped on the file. */
  unreadable: string | null;
}

export interface PageImage {
  contentType: string;
  etag: string;
  bytes: Buffer;
}

/** Widths of one page kept drawn; the least recently used beyond them are removed when another is drawn. */
const IMAGES_PER_PAGE = 4;

/** The tables the pages API keeps: page lists and sizes, words, drawn images. Plain objects out. */
export class PageStore {
  constructor(private readonly sql: Sql) {}

  async list(documentId: string): Promise<PageList | undefined> {
    const list = await this.sql.one<{ unreadable: string | null }>("SELECT unreadable FROM document_page_lists WHERE document_id = $1", [
      documentId,
    ]);
    if (!list) return undefined;
    const pages = await this.sql.rows<{ page: number; width: number; height: number }>(
      "SELECT page, width, height FROM document_pages WHERE document_id = $1 ORDER BY page",
      [documentId],
    );
    return {
      pages: pages.map((row) => ({ page: row.page, width: Number(row.width), height: Number(row.height) })),
      unreadable: list.unreadable,
    };
  }

  /**
   * Keeps a file's pages, with the words of those read; a second writer (the engine and a request at once) changes
   * nothing that is known, but fills words still missing.
   */
  async keep(document: { documentId: string; queueId: string }, pages: PageRead[]): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await this.sql.run(
        "INSERT INTO document_page_lists (document_id, queue_id, pages) VALUES ($1, $2, $3) ON CONFLICT (document_id) DO NOTHING",
        [document.documentId, document.queueId, pages.length],
        tx,
      );
      for (const page of pages)
        await this.sql.run(
          `INSERT INTO document_pages (document_id, queue_id, page, width, height, words) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (document_id, page) DO UPDATE SET words = COALESCE(document_pages.words, EXCLUDED.words)`,
          [document.documentId, document.queueId, page.page, page.width, page.height, page.words ? JSON.stringify(page.words) : null],
          tx,
        );
    });
  }

  /** Remembers that a file's pages cannot be shown (a reader stopped on it), so that it is not read again for each request. */
  async keepUnreadable(document: { documentId: string; queueId: string }, reason: string): Promise<void> {
    await this.sql.run(
      `INSERT INTO document_page_lists (document_id, queue_id, pages, unreadable) VALUES ($1, $2, 0, $3)
       ON CONFLICT (document_id) DO NOTHING`,
      [document.documentId, document.queueId, reason],
    );
  }

  /** The page's words; undefined when they were not read yet. */
  async words(documentId: string, page: number): Promise<PageWord[] | undefined> {
    const row = await this.sql.one<{ words: PageWord[] | null }>("SELECT words FROM document_pages WHERE document_id = $1 AND page = $2", [
      documentId,
      page,
    ]);
    return row?.words ?? undefined;
  }

  async keepWords(documentId: string, page: number, words: PageWord[]): Promise<void> {
    await this.sql.run("UPDATE document_pages SET words = $3 WHERE document_id = $1 AND page = $2 AND words IS NULL", [
      documentId,
      page,
      JSON.stringify(words),
    ]);
  }

  async image(documentId: string, page: number, width: number): Promise<PageImage | undefined> {
    const row = await this.sql.one<{ content_type: string; etag: string; bytes: Buffer }>(
      `UPDATE document_page_images SET used_at = now() WHERE document_id = $1 AND page = $2 AND width = $3
       RETURNING content_type, etag, bytes`,
      [documentId, page, width],
    );
    return row ? { contentType: row.content_type, etag: row.etag, bytes: row.bytes } : undefined;
  }

  /** The etag of a drawn page, without its bytes (an If-None-Match answered 304). */
  async imageEtag(documentId: string, page: number, width: number): Promise<string | undefined> {
    const row = await this.sql.one<{ etag: string }>(
      "SELECT etag FROM document_page_images WHERE document_id = $1 AND page = $2 AND width = $3",
      [documentId, page, width],
    );
    return row?.etag;
  }

  /** Keeps a drawn page and removes the least recently used widths of the same page beyond IMAGES_PER_PAGE. */
  async keepImage(document: { documentId: string; queueId: string }, page: number, width: number, image: PageImage): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await this.sql.run(
        `INSERT INTO document_page_images (document_id, queue_id, page, width, content_type, etag, bytes)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (document_id, page, width) DO NOTHING`,
        [document.documentId, document.queueId, page, width, image.contentType, image.etag, image.bytes],
        tx,
      );
      await this.sql.run(
        `DELETE FROM document_page_images WHERE document_id = $1 AND page = $2 AND width NOT IN (
           SELECT width FROM document_page_images WHERE document_id = $1 AND page = $2 ORDER BY used_at DESC LIMIT $3)`,
        [document.documentId, page, IMAGES_PER_PAGE],
        tx,
      );
    });
  }
}

/** The tables of the pages API, children first, for the removal subscriptions. */
export const PAGE_TABLES = ["document_page_images", "document_pages", "document_page_lists"] as const;
