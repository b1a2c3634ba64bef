import { randomUUID } from "node:crypto";
import type { UnitOfWork } from "@docex/kit/db";
import { NotFoundError, ValidationError } from "@docex/kit/errors";
import { type AccessControl, type Actor, readableQueue } from "../domain/access.js";
import type { DocumentStatus, StoredDocument } from "../domain/records.js";
import { invoiceOf } from "../export/invoice.js";
import type { DocumentStore } from "../store/document-store.js";
import type { HierarchyStore } from "../store/hierarchy-store.js";
import { aboPaymentOrder, type DomesticTransfer } from "./abo.js";
import { type CzechAccount, czechAccountOf, ibanIsValid } from "./accounts.js";
import type { LeftOut, PaymentBatch, PaymentStore } from "./payment-store.js";
import { type CreditTransfer, sepaCreditTransfer } from "./sepa.js";

export interface PaymentBatchInput {
  documentIds?: string[] | undefined;
  statuses?: DocumentStatus[] | undefined;
  format: "sepa" | "abo";
  debtorAccount: string;
  executionDate: string;
}

/** The most documents a batch considers. */
export const MAX_BATCH_DOCUMENTS = 500;

const CURRENCY = { sepa: "EUR", abo: "CZK" } as const;

const batchNotFound = (id: string) => () => new NotFoundError(`Payment batch ${id} does not exist.`, "payment_batch_not_found");

/**
 * Payment batches of a queue's documents (issue 38): owners, supervisors and the queue's admins (`queue.manage`: a batch
 * pays money) make a SEPA credit transfer or ABO order for the documents named, or those in the statuses named. A
 * document is left out, with the reason, when it has no account (an IBAN for SEPA, a Czech account for ABO), no amount,
 * no due date, another currency than the format pays, when it duplicates an earlier document of the organization, or
 * when a batch pays it already. The batch and the documents it pays are written in one transaction (one batch at a time
 * per queue), so no document is in two batches.
 */
export class PaymentBatches {
  constructor(
    private readonly deps: {
      sql: UnitOfWork;
      store: PaymentStore;
      documents: DocumentStore;
      hierarchy: HierarchyStore;
      access: AccessControl;
    },
  ) {}

  async create(actor: Actor, queueRef: string, input: PaymentBatchInput): Promise<PaymentBatch> {
    const { queue, scope, notFound } = await readableQueue({ queues: this.deps.hierarchy, access: this.deps.access }, actor, queueRef);
    await this.deps.access.require(actor, "queue.manage", scope, notFound);
    const debtor = debtorOf(input.format, input.debtorAccount);

    const candidates = await this.candidates(queue.id, input);
    const duplicates = await this.deps.documents.findDuplicates(candidates.map((document) => document.id));
    const matched = [...new Set([...duplicates.values()].flat().map((match) => match.id))];
    const uploadedAt = new Map(
      (await Promise.all(matched.map((id) => this.deps.documents.find(id))))
        .filter((document) => document !== undefined)
        .map((document) => [document.id, document.createdAt.getTime()]),
    );
    return this.deps.sql.transaction(async (tx) => {
      await this.deps.store.lockQueue(tx, queue.id);
      const batched = await this.deps.store.alreadyBatched(
        tx,
        candidates.map((document) => document.id),
      );
      const leftOut: LeftOut[] = [];
      const paid: Array<{ document: StoredDocument; amount: number; iban?: string; czech?: CzechAccount; vs: string; name: string }> = [];
      for (const document of candidates) {
        const invoice = invoiceOf(document);
        const czech = czechAccountOf(invoice.bankAccount) ?? czechAccountOf(invoice.iban);
        const earlier = isLaterCopy(document, duplicates.get(document.id) ?? [], uploadedAt);
        const reason = batched.has(document.id)
          ? "already_in_batch"
          : earlier
            ? "duplicate"
            : input.format === "sepa" && !(invoice.iban && ibanIsValid(invoice.iban))
              ? "no_account"
              : input.format === "abo" && !czech
                ? "no_account"
                : invoice.totalDue === undefined || invoice.totalDue <= 0
                  ? "no_amount"
                  : !invoice.dueDate
                    ? "no_due_date"
                    : invoice.currency && invoice.currency !== CURRENCY[input.format]
                      ? `currency_not_${CURRENCY[input.format].toLowerCase()}`
                      : undefined;
        if (reason) {
          leftOut.push({ document_id: document.id, reason });
          continue;
        }
        paid.push({
          document,
          amount: invoice.totalDue!,
          ...(invoice.iban ? { iban: invoice.iban } : {}),
          ...(czech ? { czech } : {}),
          vs: invoice.variableSymbol ?? invoice.invoiceId ?? "",
          name: invoice.supplierName ?? "",
        });
      }
      const id = randomUUID();
      const createdAt = new Date();
      const total = paid.reduce((sum, entry) => sum + Math.round(entry.amount * 100), 0) / 100;
      const debtorName = invoiceOfFirst(paid.map((entry) => entry.document)) ?? queue.name;
      const file =
        input.format === "sepa"
          ? {
              name: `payment-batch-${id}.xml`,
              contentType: "application/xml",
              bytes: sepaCreditTransfer({
                id,
                createdAt,
                debtorName,
                debtorIban: debtor.iban!,
                executionDate: input.executionDate,
                transfers: paid.map(
                  (entry): CreditTransfer => ({
                    documentId: entry.document.id,
                    creditorName: entry.name,
                    creditorIban: entry.iban!,
                    amount: entry.amount,
                    remittance: entry.vs,
                  }),
                ),
              }),
            }
          : {
              name: `payment-batch-${id}.kpc`,
              contentType: "text/plain; charset=us-ascii",
              bytes: aboPaymentOrder({
                createdAt,
                clientName: debtorName,
                debtor: debtor.czech!,
                executionDate: input.executionDate,
                transfers: paid.map(
                  (entry): DomesticTransfer => ({ creditor: entry.czech!, amount: entry.amount, variableSymbol: entry.vs }),
                ),
              }),
            };
      return this.deps.store.insert(tx, {
        id,
        queueId: queue.id,
        organizationId: queue.organizationId,
        format: input.format,
        documentIds: paid.map((entry) => entry.document.id),
        leftOut,
        total,
        debtorAccount: input.debtorAccount,
        executionDate: input.executionDate,
        createdBy: actor.userId,
        createdAt,
        file,
      });
    });
  }

  private async candidates(queueId: string, input: PaymentBatchInput): Promise<StoredDocument[]> {
    if (input.documentIds?.length) {
      const ids = [...new Set(input.documentIds.map((id) => id.toLowerCase()))];
      const found = await Promise.all(ids.map((id) => this.deps.documents.find(id)));
      const errors = ids.flatMap((id, index) =>
        found[index]?.queueId === queueId && found[index]?.status !== "deleted"
          ? []
          : [{ path: `document_ids.${index}`, message: `${id} is not a document of the queue` }],
      );
      if (errors.length) throw new ValidationError("Some documents are not documents of the queue.", errors, "invalid_documents");
      return found as StoredDocument[];
    }
    const { items } = await this.deps.documents.list({
      scopes: [{ organizationId: (await this.deps.hierarchy.findQueue({ id: queueId }))!.organizationId, queueIds: [queueId] }],
      queueId,
      statuses: input.statuses ?? ["exported"],
      sort: "created_at",
      offset: 0,
      limit: MAX_BATCH_DOCUMENTS,
    });
    return items;
  }

  async get(actor: Actor, id: string): Promise<PaymentBatch> {
    return this.deps.access.readableById(actor, id, (uuid) => this.deps.store.find(uuid), batchNotFound(id));
  }

  async file(actor: Actor, id: string) {
    const batch = await this.get(actor, id);
    if (batch.filePurgedAt) {
      throw new NotFoundError(
        `Payment batch ${id}'s file was removed on ${batch.filePurgedAt.toISOString()}: a document it pays reached its queue's lifetime and was purged.`,
        "payment_batch_file_purged",
      );
    }
    const file = await this.deps.store.file(batch.id);
    if (!file) throw batchNotFound(id)();
    return file;
  }
}

/** A document is the later copy when one of its duplicates (same supplier and invoice, or file) was uploaded before it. */
function isLaterCopy(document: StoredDocument, matches: { id: string }[], createdAt: Map<string, number>): boolean {
  const own = document.createdAt.getTime();
  return matches.some((match) => {
    const at = createdAt.get(match.id) ?? Number.POSITIVE_INFINITY;
    return at < own || (at === own && match.id < document.id);
  });
}

/** The payer's name on the order: the buyer the documents name. */
function invoiceOfFirst(documents: StoredDocument[]): string | undefined {
  for (const document of documents) {
    const name = invoiceOf(document).buyerName;
    if (name) return name;
  }
  return undefined;
}

function debtorOf(format: "sepa" | "abo", account: string): { iban?: string; czech?: CzechAccount } {
  if (format === "sepa") {
    const iban = account.replace(/\s/g, "").toUpperCase();
    if (ibanIsValid(iban)) return { iban };
    throw new ValidationError(
      "The debtor account is not an IBAN.",
      [{ path: "debtor_account", message: "not a valid IBAN" }],
      "invalid_account",
    );
  }
  const czech = czechAccountOf(account);
  if (czech) return { czech };
  throw new ValidationError(
    "The debtor account is not a Czech account.",
    [{ path: "debtor_account", message: "not a Czech account ([prefix-]number/bank) or Czech IBAN" }],
    "invalid_account",
  );
}
