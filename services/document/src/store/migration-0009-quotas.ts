import { sqlMigration } from "@docex/kit/db";

/**
 * Quotas per organization (issue 39): what each organization uses, and the overrides of the configured limits.
 * Stored bytes follow the documents by trigger, so that every path that keeps or lets go of a file (an upload, a
 * deletion, the retention purge, a queue's deletion, a lifetime purge) counts without knowing of quotas.
 */
export const quotasMigration = sqlMigration(
  "0009-organization-quotas",
  `
    -- stored_bytes: the files of the organization's documents that are not deleted. The two counters count accepted
    -- uploads in the current minute and calendar month (UTC), restarting when the period changes.
    CREATE TABLE IF NOT EXISTS organization_usage (
      organization_id  uuid PRIMARY KEY,
      stored_bytes     bigint NOT NULL DEFAULT 0,
      minute_start     timestamptz NOT NULL DEFAULT 'epoch',
      minute_uploads   integer NOT NULL DEFAULT 0,
      month_start      timestamptz NOT NULL DEFAULT 'epoch',
      month_documents  integer NOT NULL DEFAULT 0
    );

    -- An owner's choice for the organization; null keeps the configured default.
    CREATE TABLE IF NOT EXISTS organization_quotas (
      organization_id      uuid PRIMARY KEY,
      stored_bytes         bigint CHECK (stored_bytes > 0),
      uploads_per_minute   integer CHECK (uploads_per_minute > 0),
      documents_per_month  integer CHECK (documents_per_month > 0),
      updated_by           uuid,
      updated_at           timestamptz NOT NULL DEFAULT now()
    );

    CREATE OR REPLACE FUNCTION count_stored_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      before_bytes bigint := 0;
      after_bytes  bigint := 0;
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.file_size IS NOT NULL AND OLD.status <> 'deleted' THEN
        before_bytes := OLD.file_size;
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.file_size IS NOT NULL AND NEW.status <> 'deleted' THEN
        after_bytes := NEW.file_size;
      END IF;
      IF before_bytes <> after_bytes THEN
        INSERT INTO organization_usage (organization_id, stored_bytes)
          VALUES (COALESCE(NEW.organization_id, OLD.organization_id), after_bytes - before_bytes)
          ON CONFLICT (organization_id) DO UPDATE SET stored_bytes = organization_usage.stored_bytes + EXCLUDED.stored_bytes;
      END IF;
      RETURN NULL;
    END $$;

    DROP TRIGGER IF EXISTS documents_stored_bytes_rows ON documents;
    CREATE TRIGGER documents_stored_bytes_rows AFTER INSERT OR DELETE ON documents
      FOR EACH ROW EXECUTE FUNCTION count_stored_bytes();
    DROP TRIGGER IF EXISTS documents_stored_bytes_changes ON documents;
    CREATE TRIGGER documents_stored_bytes_changes AFTER UPDATE OF file_size, status ON documents
      FOR EACH ROW WHEN (OLD.file_size IS DISTINCT FROM NEW.file_size OR OLD.status IS DISTINCT FROM NEW.status)
      EXECUTE FUNCTION count_stored_bytes();

    -- What exists already: its stored bytes, and the documents of this month as this month's uploads.
    INSERT INTO organization_usage (organization_id, stored_bytes, month_start, month_documents)
      SELECT organization_id,
             COALESCE(sum(file_size) FILTER (WHERE status <> 'deleted'), 0),
             date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
             count(*) FILTER (WHERE created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
        FROM documents GROUP BY organization_id
      ON CONFLICT (organization_id) DO UPDATE SET stored_bytes = EXCLUDED.stored_bytes, month_start = EXCLUDED.month_start,
        month_documents = EXCLUDED.month_documents;
  `,
);
