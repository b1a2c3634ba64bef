import { createHash } from "node:crypto";
import { isApproverOnly } from "@docex/access";
import type { Tx } from "@docex/kit/db";
import { ConflictError } from "@docex/kit/errors";
import type { DocumentStore, DuplicateMatch } from "../store/document-store.js";
import type { AccessControl, Actor } from "./access.js";
import type { Annotation, DocumentMessage, StoredDocument } from "./records.js";

/** The fields that identify an invoice: the supplier's ids of the default schema (as learning reads them) and its number. */
export const DUPLICATE_FIELDS = {
  supplierTaxId: "supplier_tax_id",
  supplierRegisterId: "supplier_register_id",
  invoiceId: "invoice_id",
} as const;

/** What a document is compared by; stored with it (documents.supplier_key, invoice_key) so that the lookup is indexed. */
export interface DuplicateKeys {
  /** `tax_id:<code>`, else `register_id:<code>`; null when the document names no supplier. */
  supplierKey: string | null;
  /** invoice_id without whitespace, in lower case; null when empty. */
  invoiceKey: string | null;
}

function textOf(annotations: readonly Annotation[], key: string): string {
  return annotations.find((annotation) => annotation.key === key)?.value ?? "";
}

/** Tax and register ids are written with or without spaces, dots and dashes ("CZ 123 45 678" is "CZ12345678"), as learning keys suppliers. */
function supplierCode(text: string): string {
  return text
    .normalize("NFKC")
    .toUpperCase()
    .replace(/[^\p{L}\p{N}]/gu, "");
}

/** "INV 2024 / 001" and "inv2024/001" are one invoice number: whitespace and case do not count. */
export function invoiceKeyOf(text: string): string | null {
  const key = text.normalize("NFKC").replace(/\s/gu, "").toLowerCase();
  return key || null;
}

export function duplicateKeysOf(annotations: readonly Annotation[]): DuplicateKeys {
  const taxId = supplierCode(textOf(annotations, DUPLICATE_FIELDS.supplierTaxId));
  const registerId = supplierCode(textOf(annotations, DUPLICATE_FIELDS.supplierRegisterId));
  return {
    supplierKey: taxId ? `tax_id:${taxId}` : registerId ? `register_id:${registerId}` : null,
    invoiceKey: invoiceKeyOf(textOf(annotations, DUPLICATE_FIELDS.invoiceId)),
  };
}

/** Hex SHA-256 of a file's bytes. */
export function sha256Of(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A document with the other documents it may duplicate, as one caller sees it. */
export type DocumentView = StoredDocument & {
  /** Ids of the duplicates this caller may read, oldest first. */
  duplicates: string[];
};

/** The source of the derived warning; the warning is never stored, so nothing else can replace or keep it. */
export const DUPLICATE_MESSAGE_SOURCE = "duplicate_check";

const REASONS = { invoice: "same supplier and invoice_id", file: "same file" } as const;

function reasonsOf(match: DuplicateMatch): string {
  return [match.sameInvoice ? REASONS.invoice : "", match.sameFile ? REASONS.file : ""].filter(Boolean).join(", ");
}

/** The warning naming the duplicates; those the caller cannot read are counted, not named. */
export function duplicateWarning(visible: DuplicateMatch[], hidden: DuplicateMatch[]): DocumentMessage | undefined {
  if (visible.length === 0 && hidden.length === 0) return undefined;
  const parts = visible.map((match) => `${match.id} (${reasonsOf(match)})`);
  if (hidden.length) {
    const why = [...new Set(hidden.map(reasonsOf))].join("; ");
    parts.push(`${hidden.length} document${hidden.length === 1 ? "" : "s"} in queues you cannot open (${why})`);
  }
  return {
    key: null,
    message: `This document may be a duplicate of ${parts.join(", ")}.`,
    severity: "warning",
    source: DUPLICATE_MESSAGE_SOURCE,
  };
}

/**
 * Finds the documents of the same organization that another one may duplicate: the same supplier and invoice_id, or
 * the same uploaded file. Worked out on every read from the stored keys, so both documents of a pair know of each
 * other, a deleted document drops out at once, and a re-extraction or an edit replaces the warning instead of adding one.
 */
export class DuplicateCheck {
  constructor(
    private readonly store: DocumentStore,
    private readonly access: AccessControl,
  ) {}

  /** `documents` with `duplicates` and the warning, for `actor`. */
  async view(actor: Actor, documents: StoredDocument[]): Promise<DocumentView[]> {
    // Only a document with a file, or with a supplier and an invoice id, can have a duplicate: the others cost no query.
    const comparable = documents.filter((document) => {
      const keys = duplicateKeysOf(document.annotations);
      return document.fileSha256 !== null || (keys.supplierKey !== null && keys.invoiceKey !== null);
    });
    const matches = await this.store.findDuplicates(comparable.map((document) => document.id));
    const readable = await this.readableTo(actor, [...matches.values()].flat());
    return documents.map((document) => {
      const found = matches.get(document.id) ?? [];
      const visible = found.filter((match) => readable(match));
      const hidden = found.filter((match) => !readable(match));
      const warning = duplicateWarning(visible, hidden);
      return {
        ...document,
        messages: [...document.messages.filter((message) => message.source !== DUPLICATE_MESSAGE_SOURCE), ...(warning ? [warning] : [])],
        duplicates: visible.map((match) => match.id),
      };
    });
  }

  /**
   * For a queue that rejects duplicate files: 409 when a document of the organization (not deleted) has the same
   * file. Called under the file's lock (`lockFile`), so two uploads of one file cannot both pass.
   */
  async refuseDuplicateFile(tx: Tx, actor: Actor, organizationId: string, fileSha256: string): Promise<void> {
    const existing = await this.store.findByFile(tx, organizationId, fileSha256);
    if (!existing) return;
    const named = (await this.readableTo(actor, [existing]))(existing);
    throw new ConflictError(
      named
        ? `This file was already uploaded as document ${existing.id}; the queue rejects duplicate files.`
        : "This file was already uploaded to a queue you cannot open; the queue rejects duplicate files.",
      "duplicate_document",
      [{ path: "content", message: "the same file already exists in this organization" }],
      { duplicate_of: named ? existing.id : null },
    );
  }

  /** Whether the caller may read each match: its queue's read permission, and for approvers only what they approve. */
  private async readableTo(actor: Actor, matches: DuplicateMatch[]): Promise<(match: DuplicateMatch) => boolean> {
    const scopes = new Map(matches.map((match) => [match.queueId, { organizationId: match.organizationId, queueId: match.queueId }]));
    const grants = new Map(
      await Promise.all(
        [...scopes].map(async ([queueId, scope]) => [queueId, await this.access.grantOf(actor, "document.read", scope)] as const),
      ),
    );
    return (match) => {
      const grant = grants.get(match.queueId);
      if (!grant?.isMember || !grant.allowed) return false;
      return !isApproverOnly(grant) || match.approvers.includes(actor.userId);
    };
  }
}
