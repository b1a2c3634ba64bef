import { type Migration, sqlMigration } from "@docex/kit/db";

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
  sqlMigration(
    "0003-document-pages",
    `
        -- The pages of a document's file (the pages API), kept when the engine reads the file or on the first request
        -- for a document read before or by an outside engine. One row per document whose pages are known.
        CREATE TABLE document_page_lists (
          document_id      uuid PRIMARY KEY,
          queue_id         uuid NOT NULL,
          pages            integer NOT NULL,
          -- Why the file's pages cannot be shown (a reader stopped on it), else null: answered at once next time.
          unreadable       text,
          created_at       timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX document_page_lists_by_queue ON document_page_lists (queue_id);
        -- Each page: its size in points and its words ([{text, box}], fractions of the page), null until read.
        CREATE TABLE document_pages (
          document_id      uuid NOT NULL,
          queue_id         uuid NOT NULL,
          page             integer NOT NULL,
          width            double precision NOT NULL,
          height           double precision NOT NULL,
          words            jsonb,
          PRIMARY KEY (document_id, page)
        );
        CREATE INDEX document_pages_by_queue ON document_pages (queue_id);
        -- Pages drawn as images, per width asked for; a few widths per page are kept (the store evicts the rest).
        CREATE TABLE document_page_images (
          document_id      uuid NOT NULL,
          queue_id         uuid NOT NULL,
          page             integer NOT NULL,
          width            integer NOT NULL,
          content_type     text NOT NULL,
          etag             text NOT NULL,
          bytes            bytea NOT NULL,
          used_at          timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (document_id, page, width)
        );
        CREATE INDEX document_page_images_by_queue ON document_page_images (queue_id);
      `,
  ),
  sqlMigration(
    "0004-layout-places",
    `
        -- Where a supplier prints each field (issue 36, item 7), learned from documents people validated: the value's box
        -- and its anchor (the label before or above it), per queue and supplier (learning's supplier key).
        CREATE TABLE layout_places (
          queue_id         uuid NOT NULL,
          supplier_key     text NOT NULL,
          field_key        text NOT NULL,
          page             integer NOT NULL,
          anchor           text,
          anchor_box       jsonb,
          value_box        jsonb NOT NULL,
          confirmed        integer NOT NULL DEFAULT 1,
          missed           integer NOT NULL DEFAULT 0,
          learned_from     uuid NOT NULL,
          updated_at       timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (queue_id, supplier_key, field_key)
        );
        -- Each validation is learned once (the status_changed event's id).
        CREATE TABLE layout_validations (
          event_id         uuid PRIMARY KEY,
          document_id      uuid NOT NULL,
          queue_id         uuid NOT NULL,
          places           integer NOT NULL,
          created_at       timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX layout_validations_by_queue ON layout_validations (queue_id);
      `,
  ),
];
