import { sqlMigration } from "@docex/kit/db";

/**
 * Exported bytes do not outlive the documents in them (issue 38): when the lifetime sweep purges a document, the files of
 * the export runs and payment batches that hold it are dropped in the same transaction, and `file_purged_at` says when.
 * The runs and batches stay (ids, statuses, totals), so a caller learns why the file is gone. The GIN index finds the
 * runs of a purged document.
 */
export const exportFilesPurgedMigration = sqlMigration(
  "0020-export-files-purged",
  `
    ALTER TABLE export_runs ADD COLUMN IF NOT EXISTS file_purged_at timestamptz;
    CREATE INDEX IF NOT EXISTS export_runs_by_document ON export_runs USING gin (document_ids);

    ALTER TABLE payment_batches ADD COLUMN IF NOT EXISTS file_purged_at timestamptz;
    ALTER TABLE payment_batches ALTER COLUMN file DROP NOT NULL;
  `,
);
