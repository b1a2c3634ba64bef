import { sqlMigration } from "@docex/kit/db";

/**
 * Exports (issue 38): what an integrator recorded about a document (external_id) and every export of it (exports,
 * the Document's list), the queues' export configurations, and their runs with the file each produced.
 */
export const exportsMigration = sqlMigration(
  "0014-exports",
  `
    ALTER TABLE documents ADD COLUMN IF NOT EXISTS external_id text;
    ALTER TABLE documents ADD COLUMN IF NOT EXISTS exports jsonb NOT NULL DEFAULT '[]';

    CREATE TABLE IF NOT EXISTS exports (
      id               uuid PRIMARY KEY,
      queue_id         uuid NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
      organization_id  uuid NOT NULL,
      name             text NOT NULL,
      format           text NOT NULL CHECK (format IN ('csv', 'json', 'isdoc', 'ubl', 'pohoda', 'money_s3')),
      trigger          text NOT NULL CHECK (trigger IN ('on_ready', 'manual')),
      options          jsonb NOT NULL DEFAULT '{}',
      created_at       timestamptz NOT NULL DEFAULT now(),
      updated_at       timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX IF NOT EXISTS exports_by_queue ON exports (queue_id, created_at, id);

    -- A run keeps its export's format and options as they were, and its file (small: bytes in the row). An on_ready
    -- run is keyed by the status event that started it: a redelivered event finds its run instead of making another.
    CREATE TABLE IF NOT EXISTS export_runs (
      id               uuid PRIMARY KEY,
      export_id        uuid NOT NULL,
      queue_id         uuid NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
      organization_id  uuid NOT NULL,
      format           text NOT NULL,
      options          jsonb NOT NULL DEFAULT '{}',
      status           text NOT NULL CHECK (status IN ('running', 'done', 'failed')),
      document_ids     uuid[] NOT NULL,
      error            text,
      file_name        text,
      content_type     text,
      file             bytea,
      trigger_event_id uuid,
      created_at       timestamptz NOT NULL DEFAULT now(),
      finished_at      timestamptz
    );
    CREATE UNIQUE INDEX IF NOT EXISTS export_runs_by_event ON export_runs (export_id, trigger_event_id) WHERE trigger_event_id IS NOT NULL;
  `,
);
