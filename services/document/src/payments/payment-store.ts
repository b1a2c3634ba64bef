import type { Sql, Tx } from "@docex/kit/db";

export interface LeftOut {
  document_id: string;
  reason: string;
}

export interface PaymentBatch {
  id: string;
  queueId: string;
  organizationId: string;
  format: "sepa" | "abo";
  documentIds: string[];
  leftOut: LeftOut[];
  total: number;
  executionDate: string;
  createdAt: Date;
  /** When the file was dropped because a document it pays was purged (its lifetime ran out); null while it is kept. */
  filePurgedAt: Date | null;
}

const COLUMNS = `id, queue_id AS "queueId", organization_id AS "organizationId", format, document_ids::text[] AS "documentIds",
  left_out AS "leftOut", total::double precision AS total, to_char(execution_date, 'YYYY-MM-DD') AS "executionDate",
  created_at AS "createdAt", file_purged_at AS "filePurgedAt"`;

/** Payment batches and the documents each pays. */
export class PaymentStore {
  constructor(private readonly sql: Sql) {}

  /** The documents of `ids` that a batch pays already. */
  async alreadyBatched(tx: Tx, ids: string[]): Promise<Set<string>> {
    const rows = await this.sql.rows<{ id: string }>(
      "SELECT document_id::text AS id FROM payment_batch_documents WHERE document_id = ANY($1::uuid[])",
      [ids],
      tx,
    );
    return new Set(rows.map((row) => row.id));
  }

  /** Serialises batch making within a queue, so that two batches made at once cannot both take a document. */
  async lockQueue(tx: Tx, queueId: string): Promise<void> {
    await this.sql.rows("SELECT pg_advisory_xact_lock(hashtextextended($1, 0)) IS NULL AS locked", [`payment-batch:${queueId}`], tx);
  }

  async insert(
    tx: Tx,
    batch: Omit<PaymentBatch, "createdAt" | "filePurgedAt"> & {
      debtorAccount: string;
      createdBy: string;
      createdAt: Date;
      file: { name: string; contentType: string; bytes: Buffer };
    },
  ): Promise<PaymentBatch> {
    const row = await this.sql.one<PaymentBatch>(
      `INSERT INTO payment_batches (id, queue_id, organization_id, format, debtor_account, execution_date, document_ids, left_out, total,
         file_name, content_type, file, created_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::uuid[], $8::jsonb, $9, $10, $11, $12, $13, $14) RETURNING ${COLUMNS}`,
      [
        batch.id,
        batch.queueId,
        batch.organizationId,
        batch.format,
        batch.debtorAccount,
        batch.executionDate,
        batch.documentIds,
        JSON.stringify(batch.leftOut),
        batch.total,
        batch.file.name,
        batch.file.contentType,
        batch.file.bytes,
        batch.createdBy,
        batch.createdAt,
      ],
      tx,
    );
    if (!row) throw new Error("INSERT ... RETURNING returned no row");
    if (batch.documentIds.length) {
      await this.sql.run(
        "INSERT INTO payment_batch_documents (document_id, batch_id) SELECT unnest($1::uuid[]), $2",
        [batch.documentIds, batch.id],
        tx,
      );
    }
    return row;
  }

  find(id: string): Promise<PaymentBatch | undefined> {
    return this.sql.one<PaymentBatch>(`SELECT ${COLUMNS} FROM payment_batches WHERE id = $1`, [id]);
  }

  file(id: string): Promise<{ name: string; contentType: string; bytes: Buffer } | undefined> {
    return this.sql.one(
      `SELECT file_name AS name, content_type AS "contentType", file AS bytes FROM payment_batches WHERE id = $1 AND file IS NOT NULL`,
      [id],
    );
  }
}
