import { createHash } from "node:crypto";
import { AccessCheck, type Actor, type PermissionSource, requireAssigned } from "@docex/access";
import { DomainError, NotFoundError, ValidationError } from "@docex/kit/errors";
import { isUuid } from "@docex/kit/ids";
import type { ExtractionPool } from "../engine/pool.js";
import { ReaderStoppedError } from "../engine/pool.js";
import type { PageWord } from "../engine/types.js";
import { UnreadableFileError } from "../engine/types.js";
import type { PageImage, PageStore } from "../store/page-store.js";
import type { DocumentFile, DocumentPort, DocumentView } from "./document-port.js";

/** A file whose pages cannot be shown (a bomb, a damaged file, an image too large): 422 with the reason. */
export class PageUnreadableError extends DomainError {
  override readonly status = 422;
  override readonly title = "Unprocessable Content";
  constructor(message: string) {
    super("page_unreadable", message);
  }
}

export interface DocumentPagesDeps {
  documents: DocumentPort;
  permissions: PermissionSource;
  store: PageStore;
  /** The readers that list, read and draw pages: not those of extraction, so a backlog of scans never holds a page up. */
  pool: Pick<ExtractionPool, "pages" | "words" | "render">;
  maxFileBytes: number;
}

export type PageImageAnswer = { notModified: true; etag: string } | ({ notModified: false } & PageImage);

/** API.md: `?width=` defaults to 1200 and is at most 2000. */
export const DEFAULT_PAGE_WIDTH = 1_200;

/**
 * The pages API (GET /documents/{id}/pages, /pages/{n}, /pages/{n}/words): same access as reading the document. A
 * document's pages and words are those the engine kept when it read the file; for one read before or by an outside
 * engine they are read on the first request, from the file (ReadDocumentFile), in a capped reader, and kept. Drawn
 * pages are kept per width; their ETag is the SHA-256 of the image.
 */
export class DocumentPages {
  private readonly access: AccessCheck;
  /** Work in progress per document (and page, width): a second request waits for the first instead of reading again. */
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: DocumentPagesDeps) {
    this.access = new AccessCheck(deps.permissions);
  }

  async list(actor: Actor, documentId: string): Promise<{ page: number; width: number; height: number }[]> {
    const document = await this.readable(actor, documentId);
    return this.pagesOf(document, actor);
  }

  async words(actor: Actor, documentId: string, pageParam: string): Promise<PageWord[]> {
    const page = pageNumber(pageParam);
    const document = await this.readable(actor, documentId);
    await this.requirePage(document, actor, page);
    const kept = await this.deps.store.words(document.id, page);
    if (kept) return kept;
    return this.once(`${document.id}/${page}/words`, async () => {
      const file = await this.fileOf(document, actor);
      const words = file ? await this.reading(() => this.deps.pool.words(file, page)) : [];
      await this.deps.store.keepWords(document.id, page, words);
      return words;
    });
  }

  async image(actor: Actor, documentId: string, pageParam: string, width: number, ifNoneMatch?: string): Promise<PageImageAnswer> {
    const page = pageNumber(pageParam);
    const document = await this.readable(actor, documentId);
    await this.requirePage(document, actor, page);
    if (ifNoneMatch) {
      const etag = await this.deps.store.imageEtag(document.id, page, width);
      if (etag && matchesEtag(ifNoneMatch, etag)) return { notModified: true, etag };
    }
    const kept = await this.deps.store.image(document.id, page, width);
    if (kept) return { notModified: false, ...kept };
    const drawn = await this.once(`${document.id}/${page}/${width}`, async () => {
      const file = await this.fileOf(document, actor);
      if (!file) throw pageNotFound(page);
      const rendered = await this.reading(() => this.deps.pool.render(file, page, width));
      const bytes = Buffer.from(rendered.bytes);
      const image: PageImage = {
        contentType: rendered.contentType,
        etag: `"${createHash("sha256").update(bytes).digest("hex").slice(0, 32)}"`,
        bytes,
      };
      await this.deps.store.keepImage({ documentId: document.id, queueId: document.queueId }, page, width, image);
      return image;
    });
    return { notModified: false, ...drawn };
  }

  /** The document when the caller may read it (an approver: only when assigned); 404 otherwise, as document answers. */
  private async readable(actor: Actor, documentId: string): Promise<DocumentView> {
    const notFound = () => new NotFoundError(`Document ${documentId} does not exist.`, "document_not_found");
    const document = isUuid(documentId) ? await this.deps.documents.findDocument(documentId, { requestId: actor.requestId }) : undefined;
    if (!document) throw notFound();
    const read = await this.access.requireVisible(actor, { organizationId: document.organizationId, queueId: document.queueId }, notFound);
    await requireAssigned(read, actor, () => document.approvers, notFound);
    return document;
  }

  private async pagesOf(document: DocumentView, actor: Actor): Promise<{ page: number; width: number; height: number }[]> {
    const kept = await this.deps.store.list(document.id);
    if (kept?.unreadable) throw new PageUnreadableError(kept.unreadable);
    if (kept) return kept.pages;
    return this.once(`${document.id}/pages`, async () => {
      const file = await this.fileOf(document, actor);
      const scope = { documentId: document.id, queueId: document.queueId };
      try {
        const pages = file ? await this.reading(() => this.deps.pool.pages(file)) : [];
        await this.deps.store.keep(scope, pages);
        return pages.map(({ page, width, height }) => ({ page, width, height }));
      } catch (error) {
        if (error instanceof PageUnreadableError) await this.deps.store.keepUnreadable(scope, error.message);
        throw error;
      }
    });
  }

  private async requirePage(document: DocumentView, actor: Actor, page: number): Promise<void> {
    const pages = await this.pagesOf(document, actor);
    if (page > pages.length) throw pageNotFound(page);
  }

  /** The document's file; undefined when it has none. One over the size limit cannot be shown. */
  private async fileOf(document: DocumentView, actor: Actor): Promise<DocumentFile | undefined> {
    const file = await this.deps.documents.readFile(document.organizationId, document.id, this.deps.maxFileBytes, {
      requestId: actor.requestId,
    });
    if (file === "too_large")
      throw new PageUnreadableError(`The file is larger than ${this.deps.maxFileBytes} bytes; its pages are not shown.`);
    return file;
  }

  /** A reader's answer, its refusals as 422: a stopped reader (memory, time) or a file the engine cannot use. */
  private async reading<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ReaderStoppedError || error instanceof UnreadableFileError) throw new PageUnreadableError(error.message);
      throw error;
    }
  }

  private once<T>(key: string, work: () => Promise<T>): Promise<T> {
    const running = this.inFlight.get(key);
    if (running) return running as Promise<T>;
    const started = work().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    return started;
  }
}

/** The `{page}` path parameter: a page number from 1; anything else is 400. */
function pageNumber(param: string): number {
  if (!/^[1-9]\d{0,5}$/.test(param))
    throw new ValidationError("The page must be a whole number from 1.", [{ path: "page", message: "a whole number from 1" }]);
  return Number(param);
}

function pageNotFound(page: number): NotFoundError {
  return new NotFoundError(`The document has no page ${page}.`, "page_not_found");
}

/** If-None-Match: `*`, or a list of entity tags (weak ones compare by their value). */
function matchesEtag(header: string, etag: string): boolean {
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}
