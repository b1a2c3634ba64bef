import { sqlMigration } from "@docex/kit/db";

/**
 * Payment batches (issue 38): a SEPA or ABO file paying a queue's documents. A document is paid by one batch at most:
 * payment_batch_documents' key refuses it a second time, also to two batches made at once.
 */
export const paymentBatchesMigration = sqlMigration(
  "0015-payment-batches",
  `
    CREATE TABLE IF NOT EXISTS payment_batches (
      id               uuid PRIMARY KEY,
      queue_id         uuid NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
      organization_id  uuid NOT NULL,
      format           text NOT NULL CHECK (format IN ('sepa', 'abo')),
      debtor_account   text NOT NULL,
      execution_date   date NOT NULL,
      document_ids     uuid[] NOT NULL,
      left_out         jsonb NOT NULL DEFAULT '[]',
      total            numeric(18, 2) NOT NULL,
      file_name        text NOT NULL,
      content_type     text NOT NULL,
      file             bytea NOT NULL,
      created_by       uuid,
      created_at       timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE IF NOT EXISTS payment_batch_documents (
      document_id  uuid PRIMARY KEY,
      batch_id     uuid NOT NULL REFERENCES payment_batches (id) ON DELETE CASCADE
    );
  `,
);
