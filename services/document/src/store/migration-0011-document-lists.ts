import type { Migration } from "@docex/kit/db";

const BACKFILL_BATCH = 1_000;

/**
 * What the document lists filter and sort by, kept beside each document: the invoice number, the supplier's name and
 * tax id, the due date and the total due (from the annotations of those keys: `numericValue`, `isoDateValue`), and
 * `search_text`, the lower-cased text `q` searches (those three and the file name, separated by a control character that
 * a search never holds, so that a match never spans two fields). A trigger computes them on every insert and on every
 * write of the annotations or the file name, whichever code path writes: they cannot fall out of step with the
 * annotations. A value that is not a date or a number leaves the column null rather than failing the write.
 *
 * `q` is a substring search: a trigram index (pg_trgm) makes it an index scan for three characters or more. pg_trgm
 * ships with Postgres and is a trusted extension; where it cannot be created (a server without contrib), the lists
 * still work, scanning the organization's or queue's rows.
 */
export const documentListsMigration: Migration = {
  name: "0011-document-lists",
  up: async ({ sql }) => {
    await sql.run(`
      ALTER TABLE documents
        ADD COLUMN IF NOT EXISTS invoice_number   text,
        ADD COLUMN IF NOT EXISTS supplier_name    text,
        ADD COLUMN IF NOT EXISTS supplier_tax_id  text,
        ADD COLUMN IF NOT EXISTS due_date         date,
        ADD COLUMN IF NOT EXISTS total_due        numeric,
        ADD COLUMN IF NOT EXISTS search_text      text NOT NULL DEFAULT '';

      CREATE OR REPLACE FUNCTION documents_list_date(text) RETURNS date LANGUAGE plpgsql IMMUTABLE AS $$
      BEGIN
        IF $1 IS NULL OR $1 !~ '^\\d{4}-\\d{2}-\\d{2}$' THEN RETURN NULL; END IF;
        RETURN $1::date;
      EXCEPTION WHEN others THEN
        RETURN NULL;
      END;
      $$;

      CREATE OR REPLACE FUNCTION documents_list_fields() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        fields jsonb;
      BEGIN
        SELECT coalesce(jsonb_object_agg(a->>'key', a), '{}'::jsonb) INTO fields
        FROM jsonb_array_elements(CASE WHEN jsonb_typeof(NEW.annotations) = 'array' THEN NEW.annotations ELSE '[]'::jsonb END) a
        WHERE jsonb_typeof(a) = 'object' AND a->>'key' IN ('invoice_id', 'supplier_name', 'supplier_tax_id', 'due_date', 'total_due');
        NEW.invoice_number := nullif(btrim(fields->'invoice_id'->>'value'), '');
        NEW.supplier_name := nullif(btrim(fields->'supplier_name'->>'value'), '');
        NEW.supplier_tax_id := nullif(btrim(fields->'supplier_tax_id'->>'value'), '');
        NEW.due_date := documents_list_date(fields->'due_date'->>'isoDateValue');
        NEW.total_due := CASE WHEN jsonb_typeof(fields->'total_due'->'numericValue') = 'number'
          THEN (fields->'total_due'->'numericValue')::numeric END;
        NEW.search_text := lower(concat_ws(chr(31), NEW.invoice_number, NEW.supplier_name, NEW.supplier_tax_id, NEW.file_name));
        RETURN NEW;
      END;
      $$;

      DROP TRIGGER IF EXISTS documents_list_fields ON documents;
      CREATE TRIGGER documents_list_fields BEFORE INSERT OR UPDATE OF annotations, file_name ON documents
        FOR EACH ROW EXECUTE FUNCTION documents_list_fields();

      -- The orders of the lists, within a queue and across an organization's queues; (updated_at, id) for updated_since.
      CREATE INDEX IF NOT EXISTS documents_by_queue_due_date ON documents (queue_id, due_date, id);
      CREATE INDEX IF NOT EXISTS documents_by_queue_total_due ON documents (queue_id, total_due, id);
      CREATE INDEX IF NOT EXISTS documents_by_queue_updated ON documents (queue_id, updated_at, id);
      CREATE INDEX IF NOT EXISTS documents_by_organization ON documents (organization_id, created_at, id);
      CREATE INDEX IF NOT EXISTS documents_by_organization_updated ON documents (organization_id, updated_at, id);

      DO $$
      BEGIN
        CREATE EXTENSION IF NOT EXISTS pg_trgm;
        CREATE INDEX IF NOT EXISTS documents_search_text ON documents USING gin (search_text gin_trgm_ops);
      EXCEPTION WHEN others THEN
        RAISE NOTICE 'pg_trgm is not available (%): document search scans instead of using an index', SQLERRM;
      END;
      $$;
    `);
    // Documents that exist get their columns from the trigger, in batches (the backfill may be long, and can run again).
    for (let after = "00000000-0000-0000-0000-000000000000"; ; ) {
      const batch = await sql.rows<{ id: string }>(
        `WITH batch AS (SELECT id FROM documents WHERE id > $1 ORDER BY id LIMIT $2)
         UPDATE documents SET annotations = documents.annotations FROM batch WHERE documents.id = batch.id RETURNING documents.id`,
        [after, BACKFILL_BATCH],
      );
      if (batch.length === 0) break;
      after = batch
        .map((row) => row.id)
        .sort()
        .at(-1)!;
    }
  },
};
