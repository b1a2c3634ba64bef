import type { Migration } from "@docex/kit";

/** Schema of the membership database, in order. The kit's outbox tables are added in front. */
export const migrations: Migration[] = [
  {
    name: "0001-organizations-memberships-user-schemas",
    up: ({ sequelize }) =>
      sequelize.query(`
        CREATE TABLE organizations (
          id              uuid PRIMARY KEY,
          humanized_id    text NOT NULL UNIQUE,
          name            text NOT NULL,
          -- CreateOrganization's idempotency_key (e.g. "onboarding:<user_id>"); null for POST /organizations.
          idempotency_key text UNIQUE,
          created_at      timestamptz NOT NULL DEFAULT now()
        );

        CREATE TABLE memberships (
          organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
          user_id         uuid NOT NULL,
          role            text NOT NULL CHECK (role IN ('owner', 'supervisor', 'admin', 'editor', 'approver', 'viewer')),
          -- Null: every queue of the organization.
          queue_ids       uuid[],
          status          text NOT NULL CHECK (status IN ('active', 'invited', 'deactivated')),
          created_at      timestamptz NOT NULL DEFAULT now(),
          updated_at      timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (organization_id, user_id),
          CHECK (queue_ids IS NULL OR role IN ('admin', 'editor', 'approver', 'viewer'))
        );
        CREATE INDEX memberships_of_user ON memberships (user_id);

        -- A copy of what auth knows of a member (email, name, account status), refreshed over gRPC.
        CREATE TABLE member_profiles (
          user_id      uuid PRIMARY KEY,
          email        text,
          name         text,
          auth_status  text,
          refreshed_at timestamptz
        );

        -- Which annotation fields a member sees or may edit: organization-wide (queue_id null) or per queue.
        CREATE TABLE user_schemas (
          organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
          user_id         uuid NOT NULL,
          queue_id        uuid,
          fields          jsonb NOT NULL,
          updated_at      timestamptz NOT NULL DEFAULT now(),
          UNIQUE NULLS NOT DISTINCT (organization_id, user_id, queue_id)
        );
      `),
  },
  {
    name: "0002-audit-log",
    up: ({ sequelize }) =>
      sequelize.query(`
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
      `),
  },
  {
    name: "0003-audit-counts",
    up: ({ sequelize }) =>
      sequelize.query(`
        -- Entries per organization and type, kept by the statements that append and purge entries, so that the total
        -- of an audit-log page filtered by nothing but type is a sum of a few rows instead of a count of a year.
        CREATE TABLE audit_counts (
          organization_id uuid NOT NULL,
          type            text NOT NULL,
          entries         bigint NOT NULL CHECK (entries >= 0),
          PRIMARY KEY (organization_id, type)
        );
        INSERT INTO audit_counts (organization_id, type, entries)
          SELECT organization_id, type, count(*) FROM audit_entries WHERE organization_id IS NOT NULL GROUP BY 1, 2;
      `),
  },
  {
    name: "0004-invitations-need-acceptance",
    up: ({ sequelize }) =>
      sequelize.query(`
        -- status 'invited' now means "invited, not accepted yet": the membership grants nothing until its user accepts
        -- (AcceptInvitation), whatever auth knows of the account. The invitation's email and expiry live on the row;
        -- a pending row never shows the profile of the user behind the email.
        ALTER TABLE memberships
          ADD COLUMN invited_email         text,
          ADD COLUMN invitation_expires_at timestamptz,
          ADD COLUMN accepted_at           timestamptz;
        UPDATE memberships SET accepted_at = created_at WHERE status <> 'invited';
        -- Invitations sent before acceptance existed stay open for a week.
        UPDATE memberships m SET invited_email = p.email
          FROM member_profiles p WHERE p.user_id = m.user_id AND m.status = 'invited';
        UPDATE memberships SET invitation_expires_at = now() + interval '7 days' WHERE status = 'invited';
        CREATE INDEX memberships_pending ON memberships (organization_id, invitation_expires_at) WHERE status = 'invited';

        -- One row per invitation mailed (invite and invite again), for the per-organization daily quota.
        CREATE TABLE invitations_sent (
          organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
          sent_at         timestamptz NOT NULL
        );
        CREATE INDEX invitations_sent_recent ON invitations_sent (organization_id, sent_at);
      `),
  },
];
