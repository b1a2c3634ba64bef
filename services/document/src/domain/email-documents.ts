import { createHash, randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import type { OutboxEvents } from "@docex/kit/bus";
import { ForeignKeyViolationError, UniqueViolationError, type UnitOfWork } from "@docex/kit/db";
import { ConflictError, NotFoundError, PayloadTooLargeError, UnsupportedMediaTypeError } from "@docex/kit/errors";
import type { FileStore } from "../files/file-store.js";
import { sniffFileType } from "../files/upload-body.js";
import type { DocumentStore } from "../store/document-store.js";
import type { HierarchyStore } from "../store/hierarchy-store.js";
import { mergeAnnotations } from "./annotations.js";
import { documentCreated } from "./document-events.js";
import { QuotaExceededError, type Quotas, StorageQuotaExceededError } from "./quotas.js";
import type { DocumentSource, Queue, StoredDocument } from "./records.js";

export interface EmailDocumentsDependencies {
  sql: UnitOfWork;
  hierarchy: HierarchyStore;
  documents: DocumentStore;
  files: FileStore;
  quotas: Pick<Quotas, "charge">;
  events: OutboxEvents;
  /** INTAKE_MAIL_DOMAIN. */
  inboxDomain: string;
  /** DOCUMENT_MAX_FILE_BYTES: an attachment is a file like an upload's. */
  maxFileBytes: number;
}

/** One attachment of a mail to a queue's inbox, as the intake hands it over. */
export interface EmailAttachment {
  /** The recipient address. */
  address: string;
  /** Derived from the message and the attachment: a retried mail carries the same keys. */
  sourceKey: string;
  fileName: string;
  content: Buffer;
  source: Omit<DocumentSource, "channel">;
}

export type EmailRefusal = "unsupported_type" | "too_large" | "duplicate_document" | "storage_quota_exceeded" | "upload_quota_exceeded";

export type EmailOutcome = { document: StoredDocument; existing: boolean } | { refused: EmailRefusal; detail: string };

/** The upload's refusals, named for the intake. */
function refusalOf(error: unknown): EmailRefusal | undefined {
  if (error instanceof StorageQuotaExceededError) return "storage_quota_exceeded";
  if (error instanceof QuotaExceededError) return "upload_quota_exceeded";
  if (error instanceof PayloadTooLargeError) return "too_large";
  if (error instanceof UnsupportedMediaTypeError) return "unsupported_type";
  if (error instanceof ConflictError && error.code === "duplicate_document") return "duplicate_document";
  return undefined;
}

const unknownInbox = (address: string) => new NotFoundError(`No queue has the inbox ${address}.`, "inbox_not_found");

/**
 * Documents that arrive by mail (the intake service, over gRPC): each accepted attachment becomes a document of the
 * inbox's queue on the upload's path (type by the bytes, size limit, quotas, duplicate file rejection, the file kept
 * before the row, document.created in the row's transaction), on behalf of no user.
 */
export class EmailDocuments {
  constructor(private readonly deps: EmailDocumentsDependencies) {}

  /** The queue an inbox address names, from the database: a rotated token is refused at once. */
  async inbox(address: string): Promise<Queue> {
    const at = address.lastIndexOf("@");
    const local = address.slice(0, at).toLowerCase();
    const domain = address.slice(at + 1).toLowerCase();
    const dot = local.lastIndexOf(".");
    if (at <= 0 || dot <= 0 || domain !== this.deps.inboxDomain.toLowerCase()) throw unknownInbox(address);
    const queue = await this.deps.hierarchy.findInbox(local.slice(0, dot), local.slice(dot + 1));
    if (!queue) throw unknownInbox(address);
    return queue;
  }

  /**
   * Keeps the attachment as a new document, or answers the one an earlier try of the same mail made; what an upload
   * would refuse is answered as a refusal (nothing kept).
   */
  async receive(attachment: EmailAttachment): Promise<EmailOutcome> {
    try {
      return await this.keep(attachment);
    } catch (error) {
      const refused = refusalOf(error);
      if (!refused) throw error;
      return { refused, detail: (error as Error).message };
    }
  }

  private async keep(attachment: EmailAttachment): Promise<EmailOutcome> {
    const queue = await this.inbox(attachment.address);
    const earlier = await this.deps.documents.findBySourceKey(queue.id, attachment.sourceKey);
    if (earlier) return { document: earlier, existing: true };
    const { content } = attachment;
    if (content.length > this.deps.maxFileBytes) {
      throw new PayloadTooLargeError(`The attachment is larger than ${this.deps.maxFileBytes} bytes (DOCUMENT_MAX_FILE_BYTES).`);
    }
    const contentType = content.length ? await sniffFileType(content.subarray(0, 4_100), attachment.fileName) : undefined;
    if (!contentType)
      throw new UnsupportedMediaTypeError("The attachment is not a PDF, PNG, JPEG, TIFF or XML document, nor an .isdocx archive.");
    const sha256 = createHash("sha256").update(content).digest("hex");
    const id = randomUUID();
    await this.deps.files.put(id, Readable.from([content]), content.length);
    try {
      const document = await this.deps.sql.transaction(async (tx) => {
        await this.deps.documents.lockFile(tx, queue.organizationId, sha256);
        if (queue.duplicateFileRejection) {
          const duplicate = await this.deps.documents.findByFile(tx, queue.organizationId, sha256);
          if (duplicate) {
            throw new ConflictError(
              `This file was already received as document ${duplicate.id}; the queue rejects duplicate files.`,
              "duplicate_document",
            );
          }
        }
        await this.deps.quotas.charge(tx, queue.organizationId, content.length);
        const inserted = await this.deps.documents.insert(tx, {
          id,
          queueId: queue.id,
          workspaceId: queue.workspaceId,
          organizationId: queue.organizationId,
          fileName: attachment.fileName,
          fileSha256: sha256,
          fileContentType: contentType,
          fileSize: content.length,
          status: "received",
          annotations: mergeAnnotations(queue.annotationSchema, [], []),
          messages: [],
          options: {},
          approvers: [],
          approval: null,
          confidence: null,
          source: { channel: "email", ...attachment.source },
          sourceKey: attachment.sourceKey,
        });
        await this.deps.events.add(tx, documentCreated(inserted, { userId: null }));
        return inserted;
      });
      return { document, existing: false };
    } catch (error) {
      await this.deps.files.delete(id).catch(() => undefined);
      // The same mail retried while its first try was still being kept: that try's document is the answer.
      if (error instanceof UniqueViolationError) {
        const made = await this.deps.documents.findBySourceKey(queue.id, attachment.sourceKey);
        if (made) return { document: made, existing: true };
      }
      if (error instanceof ForeignKeyViolationError) throw unknownInbox(attachment.address);
      throw error;
    }
  }
}
