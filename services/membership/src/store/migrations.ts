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
];
