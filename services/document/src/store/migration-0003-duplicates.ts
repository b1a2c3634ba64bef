import type { Migration } from "@docex/kit/db";
import { duplicateKeysOf } from "../domain/duplicates.js";
import type { Annotation } from "../domain/records.js";

const BACKFILL_BATCH = 500;

/**
 * Duplicate detection: the keys documents are compared by, the hash of the uploaded file, and the queue option that
 * refuses a file the organization already has. Documents that exist get their keys from their annotations here,
 * with the same rule the service writes them with. Not one transaction (the backfill may be long), so every step
 * can run again after a failure.
 */
export const duplicateDetectionMigration: Migration = {
  name: "0003-duplicate-detection",
  up: async ({ sql }) => {
    await sql.run(`
      ALTER TABLE documents
        ADD COLUMN IF NOT EXISTS file_sha256   text CHECK (file_sha256 ~ '^[0-9a-f]{64}$'),
        -- 'tax_id:<code>' else 'register_id:<code>' of the supplier; null when the document names none.
        ADD COLUMN IF NOT EXISTS supplier_key  text,
        -- invoice_id without whitespace, lower case; null when empty.
        ADD COLUMN IF NOT EXISTS invoice_key   text;
      ALTER TABLE queues ADD COLUMN IF NOT EXISTS duplicate_file_rejection boolean NOT NULL DEFAULT false;

      -- A deleted document is a duplicate of nothing, and a document without both keys (or without a file) matches
      -- nothing by them: the partial indexes hold only what can match.
      CREATE INDEX IF NOT EXISTS documents_same_invoice ON documents (organization_id, supplier_key, invoice_key)
        WHERE status <> 'deleted' AND supplier_key IS NOT NULL AND invoice_key IS NOT NULL;
      CREATE INDEX IF NOT EXISTS documents_same_file ON documents (organization_id, file_sha256)
        WHERE status <> 'deleted' AND file_sha256 IS NOT NULL;
    `);
    for (let after = "00000000-0000-0000-0000-000000000000"; ; ) {
      const batch = await sql.rows<{ id: string; annotations: Annotation[] }>(
        "SELECT id, annotations FROM documents WHERE id > $1 ORDER BY id LIMIT $2",
        [after, BACKFILL_BATCH],
      );
      if (batch.length === 0) break;
      const keys = batch.map((document) => ({ id: document.id, ...duplicateKeysOf(document.annotations) }));
      await sql.run(
        `UPDATE documents SET supplier_key = keys.supplier_key, invoice_key = keys.invoice_key
         FROM jsonb_to_recordset($1::jsonb) AS keys (id uuid, supplier_key text, invoice_key text)
         WHERE documents.id = keys.id`,
        [JSON.stringify(keys.map((key) => ({ id: key.id, supplier_key: key.supplierKey, invoice_key: key.invoiceKey })))],
      );
      after = batch[batch.length - 1]!.id;
    }
  },
};
