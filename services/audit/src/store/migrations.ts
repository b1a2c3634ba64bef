import { type Migration, sqlMigration } from "@docex/kit";

/**
 * Schema of the audit database, in order. The kit's outbox tables are added in front. The tables are those membership
 * kept while the audit log was part of it (its migrations 0002 and 0003), so entries copy across unchanged.
 */
export const migrations: Migration[] = [
  sqlMigration(
    "0001-audit-log",
    `
        -- Who changed what, when, from which request: one row per event and organization that may see it.
        -- Append-only: rows are never updated, and only the retention purge (which sets
        -- docex.audit_purge for its transaction) may delete them.
        CREATE TABLE audit_entries (
          event_id        uuid NOT NULL,
          -- Null: a login attempt of no member of any organization.
          organization_id uuid,
          type            text NOT NULL,
          occurred_at     timestamptz NOT NULL,
          user_id         uuid,
          request_id      text,
          document_id     uuid,
          queue_id        uuid,
          details         jsonb NOT NULL,
          recorded_at     timestamptz NOT NULL DEFAULT now(),
          UNIQUE NULLS NOT DISTINCT (event_id, organization_id)
        );
        CREATE INDEX audit_entries_of_organization ON audit_entries (organization_id, occurred_at DESC, event_id DESC);
        CREATE INDEX audit_entries_of_user ON audit_entries (organization_id, user_id, occurred_at DESC);
        CREATE INDEX audit_entries_of_document ON audit_entries (document_id, occurred_at DESC) WHERE document_id IS NOT NULL;
        CREATE INDEX audit_entries_by_age ON audit_entries (occurred_at);

        CREATE FUNCTION audit_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'DELETE' AND current_setting('docex.audit_purge', true) = 'on' THEN
            RETURN OLD;
          END IF;
          RAISE EXCEPTION 'audit entries are append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
        END;
        $$;
        CREATE TRIGGER audit_entries_append_only BEFORE UPDATE OR DELETE ON audit_entries
          FOR EACH ROW EXECUTE FUNCTION audit_entries_append_only();

        -- Entries per organization and type, kept by the statements that append and purge entries, so that the total
        -- of an audit-log page filtered by nothing but type is a sum of a few rows instead of a count of a year.
        CREATE TABLE audit_counts (
          organization_id uuid NOT NULL,
          type            text NOT NULL,
          entries         bigint NOT NULL CHECK (entries >= 0),
          PRIMARY KEY (organization_id, type)
        );
      `,
  ),
];
