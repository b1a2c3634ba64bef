import { type Migration, sqlMigration } from "@docex/kit/db";

/** Schema of the auth database, in order. The kit's outbox tables are added in front. */
export const migrations: Migration[] = [
  sqlMigration(
    "0001-identity",
    `
        CREATE TABLE users (
          id                  uuid PRIMARY KEY,
          email               text NOT NULL UNIQUE, -- trimmed and lowercased by the domain
          name                text NOT NULL DEFAULT '',
          status              text NOT NULL CHECK (status IN ('invited', 'active', 'deactivated')),
          password_hash       text,
          password_changed_at timestamptz,
          ui_locale           text,
          totp_secret         text,
          totp_pending_secret text,
          totp_enabled_at     timestamptz,
          totp_last_step      bigint,
          created_at          timestamptz NOT NULL,
          updated_at          timestamptz NOT NULL
        );

        -- A self-registration: what POST /auth/register said, until onboarding completes.
        CREATE TABLE onboardings (
          user_id         uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
          phone           text NOT NULL,
          ui_locale       text NOT NULL,
          company         text,
          register_id     text,
          vat_id          text,
          erp             text,
          invoice_count   double precision,
          registered_at   timestamptz NOT NULL,
          completed_at    timestamptz,
          organization_id uuid
        );

        -- Magic-login, password-reset and invitation tokens and onboarding PINs, stored as digests only.
        CREATE TABLE one_time_secrets (
          id          uuid PRIMARY KEY,
          user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
          purpose     text NOT NULL CHECK (purpose IN ('magic_login', 'password_reset', 'invitation', 'onboarding_pin')),
          digest      bytea NOT NULL,
          attempts    integer NOT NULL DEFAULT 0,
          created_at  timestamptz NOT NULL,
          expires_at  timestamptz NOT NULL
        );
        CREATE UNIQUE INDEX one_time_secrets_digest ON one_time_secrets (digest) WHERE purpose <> 'onboarding_pin';
        CREATE INDEX one_time_secrets_user ON one_time_secrets (user_id, purpose);
        CREATE INDEX one_time_secrets_expiry ON one_time_secrets (expires_at);

        -- One family per login; every refresh adds the next token of the family.
        CREATE TABLE refresh_families (
          id             uuid PRIMARY KEY,
          user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
          amr            text[] NOT NULL,
          created_at     timestamptz NOT NULL,
          expires_at     timestamptz NOT NULL,
          revoked_at     timestamptz,
          revoked_reason text
        );
        CREATE INDEX refresh_families_user ON refresh_families (user_id) WHERE revoked_at IS NULL;
        CREATE INDEX refresh_families_expiry ON refresh_families (expires_at);

        CREATE TABLE refresh_tokens (
          digest     bytea PRIMARY KEY,
          family_id  uuid NOT NULL REFERENCES refresh_families (id) ON DELETE CASCADE,
          issued_at  timestamptz NOT NULL,
          rotated_at timestamptz
        );
        CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);

        CREATE TABLE trusted_sources (
          digest     bytea PRIMARY KEY,
          user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
          created_at timestamptz NOT NULL,
          expires_at timestamptz NOT NULL
        );
        CREATE INDEX trusted_sources_user ON trusted_sources (user_id);

        -- Signing keys of access tokens; the private key is sealed with AUTH_KEY_ENCRYPTION_KEY.
        CREATE TABLE signing_keys (
          kid         text PRIMARY KEY,
          alg         text NOT NULL,
          public_jwk  jsonb NOT NULL,
          private_key text NOT NULL,
          created_at  timestamptz NOT NULL,
          retired_at  timestamptz
        );
        CREATE UNIQUE INDEX signing_keys_one_active ON signing_keys ((true)) WHERE retired_at IS NULL;

        -- Failure counters of the brute-force guard; subjects are digests (no emails or addresses kept).
        CREATE TABLE throttles (
          scope             text NOT NULL,
          subject           bytea NOT NULL,
          failures          integer NOT NULL,
          window_started_at timestamptz NOT NULL,
          blocked_until     timestamptz,
          lockouts          integer NOT NULL,
          updated_at        timestamptz NOT NULL,
          PRIMARY KEY (scope, subject)
        );
      `,
  ),
  sqlMigration(
    "0002-used-id-tokens",
    `
        -- Social-login id_tokens already used, as SHA-256 digests, until they expire: each logs in once.
        CREATE TABLE used_id_tokens (
          digest     bytea PRIMARY KEY,
          used_at    timestamptz NOT NULL,
          expires_at timestamptz NOT NULL
        );
        CREATE INDEX used_id_tokens_expiry ON used_id_tokens (expires_at);
      `,
  ),
  sqlMigration(
    "0003-invitation-tokens-of-organizations",
    `
        -- The organization an invitation token invites to (membership's AcceptInvitation is asked when it is used);
        -- null for the invitation token of a self-registration, which sets the first password only.
        ALTER TABLE one_time_secrets ADD COLUMN organization_id uuid;
      `,
  ),
  sqlMigration(
    "0004-signing-key-prepublication",
    `
        -- A key is published (JWKS) from created_at, signs from activated_at: the next key is published
        -- before it signs, so verifiers already hold it when its first token arrives.
        ALTER TABLE signing_keys ADD COLUMN activated_at timestamptz;
        UPDATE signing_keys SET activated_at = created_at;
        DROP INDEX signing_keys_one_active;
        CREATE UNIQUE INDEX signing_keys_one_active ON signing_keys ((true)) WHERE retired_at IS NULL AND activated_at IS NOT NULL;
        CREATE UNIQUE INDEX signing_keys_one_next ON signing_keys ((true)) WHERE activated_at IS NULL;
      `,
  ),
  sqlMigration(
    "0005-erased-users",
    `
        -- When the person's name and email were erased (DELETE /auth/me, or an owner's erasure that took the account):
        -- the row keeps its id and shape with a placeholder email, and can no longer sign in.
        ALTER TABLE users ADD COLUMN erased_at timestamptz;
      `,
  ),
];
