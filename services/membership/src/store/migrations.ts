import { type Migration, sqlMigration } from "@docex/kit/db";

/** Schema of the membership database, in order. The kit's outbox tables are added in front. */
export const migrations: Migration[] = [
  sqlMigration(
    "0001-organizations-memberships-user-schemas",
    `
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
      `,
  ),
  // 0002 and 0003 created the audit log's tables (audit_entries, append-only by trigger, and audit_counts). The log is
  // the audit service's now, whose 0001 creates the same tables in its own database: a new membership database gets
  // none, and one migrated before keeps them, no longer written, until the audit service's import has copied them
  // (services/audit/DECISIONS.md). The names stay so that the order of applied migrations is unchanged.
  { name: "0002-audit-log", up: async () => undefined },
  { name: "0003-audit-counts", up: async () => undefined },
  sqlMigration(
    "0004-invitations-need-acceptance",
    `
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
      `,
  ),
  sqlMigration(
    "0005-erased-personal-data",
    `
        -- When an owner (DELETE .../members/{user_id}/personal-data) or the person (DELETE /auth/me) erased what this
        -- membership holds of them: the row stays, deactivated, and shows no email or name.
        ALTER TABLE memberships ADD COLUMN personal_data_erased_at timestamptz;
      `,
  ),
];
