import { type Migration, sqlMigration } from "@docex/kit/db";

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
  sqlMigration(
    "0002-erasure-of-personal-data",
    `
        -- Erasure of a person (user.personal_data_erased, member.personal_data_erased), or of purged documents
        -- (documents.purged), keeps their entries with every
        -- value of details replaced by null (keys and list lengths kept: the records keep their shape). Only the
        -- erasure, which sets docex.audit_erasure for its transaction, may update an entry, and only its details and
        -- erased_at.
        ALTER TABLE audit_entries ADD COLUMN erased_at timestamptz;

        CREATE FUNCTION audit_erased_values(value jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
        BEGIN
          RETURN CASE jsonb_typeof(value)
            WHEN 'object' THEN coalesce(
              (SELECT jsonb_object_agg(member.key, audit_erased_values(member.value)) FROM jsonb_each(value) AS member), '{}'::jsonb)
            WHEN 'array' THEN coalesce(
              (SELECT jsonb_agg(audit_erased_values(item.value)) FROM jsonb_array_elements(value) AS item), '[]'::jsonb)
            ELSE 'null'::jsonb
          END;
        END;
        $$;

        CREATE OR REPLACE FUNCTION audit_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'DELETE' AND current_setting('docex.audit_purge', true) = 'on' THEN
            RETURN OLD;
          END IF;
          IF TG_OP = 'UPDATE' AND current_setting('docex.audit_erasure', true) = 'on'
             AND (NEW.event_id, NEW.organization_id, NEW.type, NEW.occurred_at, NEW.user_id, NEW.request_id, NEW.document_id,
                  NEW.queue_id, NEW.recorded_at)
                 IS NOT DISTINCT FROM
                 (OLD.event_id, OLD.organization_id, OLD.type, OLD.occurred_at, OLD.user_id, OLD.request_id, OLD.document_id,
                  OLD.queue_id, OLD.recorded_at)
             AND NEW.details = audit_erased_values(OLD.details) THEN
            RETURN NEW;
          END IF;
          RAISE EXCEPTION 'audit entries are append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
        END;
        $$;
        CREATE INDEX audit_entries_of_person ON audit_entries (user_id) WHERE erased_at IS NULL;
      `,
  ),
];
