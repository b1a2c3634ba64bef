import { type Migration, sqlMigration } from "@docex/kit";

/** Schema of the extraction database, in order. The kit's outbox tables are added in front. */
export const migrations: Migration[] = [
  sqlMigration(
    "0001-extraction-runs",
    `
        -- One row per document.created event handled to the end; a redelivered event finds its row and is skipped.
        CREATE TABLE extraction_runs (
          event_id         uuid PRIMARY KEY,
          document_id      uuid NOT NULL,
          queue_id         uuid NOT NULL,
          -- How the file was read (isdoc, ubl, cii, xrechnung, facturx, pdf_text, ocr, unreadable), or null when skipped.
          format           text,
          -- applied | skipped_external | skipped_no_file | skipped_no_queue | the document service's refusal reason.
          outcome          text NOT NULL,
          fields_found     integer NOT NULL DEFAULT 0,
          duration_ms      integer NOT NULL DEFAULT 0,
          created_at       timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX extraction_runs_by_document ON extraction_runs (document_id);
      `,
  ),
  sqlMigration(
    "0002-extraction-reads",
    `
        -- Reads of a document.created event's file that were started and never ended: counted (and committed) before
        -- each read, the row removed once a read ends, whatever its result. A file that kills the service while it
        -- is read (and is redelivered) adds one each time, and is given up past a limit; a delivery retried for
        -- another reason (document unreachable afterwards) adds nothing.
        CREATE TABLE extraction_reads (
          event_id         uuid PRIMARY KEY,
          document_id      uuid NOT NULL,
          queue_id         uuid NOT NULL,
          reads            integer NOT NULL,
          last_started_at  timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX extraction_reads_by_queue ON extraction_reads (queue_id);
      `,
  ),
];
