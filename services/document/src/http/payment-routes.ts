import { DOCUMENT_STATUSES } from "@docex/events";
import { actorOf } from "@docex/kit/auth";
import { type ApiDescription, dataOf } from "@docex/kit/http";
import type { Request, RequestHandler, Router } from "express";
import { z } from "zod";
import { contentDispositionOf } from "../files/upload-body.js";
import { MAX_BATCH_DOCUMENTS, type PaymentBatches } from "../payments/payment-batches.js";
import type { PaymentBatch } from "../payments/payment-store.js";

const API = "/api/v2";
const MEMBERSHIP_PROBLEMS = [503, 504];

export const paymentBatchSchema = z.object({
  id: z.guid(),
  queue_id: z.guid(),
  format: z.enum(["sepa", "abo"]),
  document_ids: z.array(z.guid()).describe("The documents the batch pays"),
  left_out: z
    .array(z.object({ document_id: z.guid(), reason: z.string() }))
    .describe(
      "Documents not paid, with why: no_account, no_amount, no_due_date, currency_not_eur / currency_not_czk, duplicate " +
        "(of an earlier document), already_in_batch",
    ),
  total: z.number().describe("The sum paid, in the format's currency (EUR for SEPA, CZK for ABO)"),
  execution_date: z.iso.date().describe("When the bank is to pay"),
  created_at: z.iso.datetime(),
  file_purged_at: z.iso
    .datetime()
    .nullable()
    .describe("When the file was removed because a document it pays was purged (its queue's document lifetime); null while kept"),
});

export function paymentBatchDto(batch: PaymentBatch): z.output<typeof paymentBatchSchema> {
  return {
    id: batch.id,
    queue_id: batch.queueId,
    format: batch.format,
    document_ids: batch.documentIds,
    left_out: batch.leftOut,
    total: batch.total,
    execution_date: batch.executionDate,
    created_at: batch.createdAt.toISOString(),
    file_purged_at: batch.filePurgedAt ? batch.filePurgedAt.toISOString() : null,
  };
}

export const paymentBatchBody = z
  .strictObject({
    document_ids: z.array(z.guid()).min(1).max(MAX_BATCH_DOCUMENTS).optional(),
    status: z
      .union([z.enum(DOCUMENT_STATUSES), z.array(z.enum(DOCUMENT_STATUSES)).min(1)])
      .optional()
      .describe("Instead of document_ids: the queue's documents in these statuses (oldest first, at most 500)"),
    format: z.enum(["sepa", "abo"]),
    debtor_account: z
      .string()
      .trim()
      .min(4)
      .max(64)
      .describe("SEPA: the payer's IBAN; ABO: a Czech account `[prefix-]number/bank` or CZ IBAN"),
    execution_date: z.iso.date().describe("When the bank is to pay"),
  })
  .refine((body) => (body.document_ids === undefined) !== (body.status === undefined), {
    message: "send either document_ids or status",
    path: ["document_ids"],
  });

/** Payment batches of a queue's documents (issue 38). */
export function paymentRoutes(api: ApiDescription, router: Router, signedIn: RequestHandler, batches: PaymentBatches): void {
  const param = (req: Request, name: string) => String(req.params[name] ?? "");
  api.route(
    router,
    {
      method: "post",
      path: `${API}/queues/{queue_id}/payment-batches`,
      operationId: "createPaymentBatch",
      summary: "Make a payment batch (SEPA or ABO) of a queue's documents",
      description:
        "Owners, supervisors and the queue's admins. Pays the documents named (or those in `status`) that have an account, an " +
        "amount, a due date and the format's currency, that do not duplicate an earlier document and that no batch pays " +
        "already; the others are listed in `left_out` with the reason. The variable symbol is the remittance information.",
      tags: ["Payments"],
      params: { queue_id: "The queue: UUID or humanized id" },
      body: paymentBatchBody,
      responses: {
        201: {
          description: "The batch",
          schema: dataOf(paymentBatchSchema),
          headers: { Location: "`/api/v2/payment-batches/{id}`; its file is at `/api/v2/payment-batches/{id}/file`" },
        },
      },
      problems: [403, 404, ...MEMBERSHIP_PROBLEMS],
    },
    signedIn,
    async ({ body }, req, res) => {
      const batch = await batches.create(actorOf(req), param(req, "queue_id"), {
        documentIds: body.document_ids,
        statuses: body.status === undefined ? undefined : Array.isArray(body.status) ? body.status : [body.status],
        format: body.format,
        debtorAccount: body.debtor_account,
        executionDate: body.execution_date,
      });
      res
        .status(201)
        .location(`${API}/payment-batches/${batch.id}`)
        .json({ data: paymentBatchDto(batch) });
    },
  );

  api.route(
    router,
    {
      method: "get",
      path: `${API}/payment-batches/{batch_id}`,
      operationId: "getPaymentBatch",
      summary: "Read a payment batch",
      description: "Whoever may read the queue: the documents paid, those left out with why, the total.",
      tags: ["Payments"],
      params: { batch_id: "The payment batch's UUID" },
      responses: { 200: { description: "The batch", schema: dataOf(paymentBatchSchema) } },
      problems: [404, ...MEMBERSHIP_PROBLEMS],
    },
    signedIn,
    async (_input, req, res) => {
      res.json({ data: paymentBatchDto(await batches.get(actorOf(req), param(req, "batch_id"))) });
    },
  );

  api.route(
    router,
    {
      method: "get",
      path: `${API}/payment-batches/{batch_id}/file`,
      operationId: "getPaymentBatchFile",
      summary: "Download a payment batch's file",
      description:
        "Whoever may read the queue. SEPA: pain.001.001.09 XML; ABO: the KPC text file. 404 `payment_batch_file_purged` once a " +
        "document it pays was purged (its queue's document lifetime).",
      tags: ["Payments"],
      params: { batch_id: "The payment batch's UUID" },
      responses: {
        200: {
          description: "The file",
          binary: ["application/xml", "text/plain"],
          headers: { "Content-Disposition": "`attachment` with the file name" },
        },
      },
      problems: [404, ...MEMBERSHIP_PROBLEMS],
    },
    signedIn,
    async (_input, req, res) => {
      const file = await batches.file(actorOf(req), param(req, "batch_id"));
      res.status(200);
      res.setHeader("Content-Type", file.contentType);
      res.setHeader("Content-Disposition", contentDispositionOf(file.name));
      res.setHeader("X-Content-Type-Options", "nosniff");
      res.end(file.bytes);
    },
  );
}
