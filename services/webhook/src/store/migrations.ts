import { type Migration, sqlMigration } from "@docex/kit/db";

/** Schema of the webhook database, in order. The kit's outbox tables are added in front. */
export const migrations: Migration[] = [
  sqlMigration(
    "0001-webhooks-signing-keys-validation-links-deliveries",
    `
        CREATE TABLE webhooks (
          id                     uuid PRIMARY KEY,
          entity_type            text NOT NULL CHECK (entity_type IN ('organization', 'workspace', 'queue', 'document')),
          entity_id              uuid NOT NULL,
          -- The entity's ancestors, as ResolveEntity named them at creation: the scope of permission checks.
          organization_id        uuid NOT NULL,
          workspace_id           uuid,
          queue_id               uuid,
          type                   text NOT NULL CHECK (type IN ('document_status_changed', 'queue_created',
                                                               'initial_document_validation', 'document_validation')),
          url                    text NOT NULL,
          signature_verification text NOT NULL CHECK (signature_verification IN ('enabled', 'disabled')),
          destination_id         uuid,
          deprecated             boolean NOT NULL DEFAULT false,
          created_at             timestamptz NOT NULL DEFAULT now(),
          updated_at             timestamptz NOT NULL DEFAULT now(),
          -- The same URL twice on one entity for one type would deliver every event twice.
          UNIQUE (entity_id, type, url)
        );
        CREATE INDEX webhooks_of_organization ON webhooks (organization_id);

        -- One per organization; the key is sealed with WEBHOOK_KEY_ENCRYPTION_KEY (AES-256-GCM, bound to the organization).
        CREATE TABLE signing_keys (
          organization_id uuid PRIMARY KEY,
          sealed_key      text NOT NULL,
          -- Which key-encryption key sealed it (a digest), so that a wrong WEBHOOK_KEY_ENCRYPTION_KEY is named as such.
          kek_fingerprint text NOT NULL,
          created_at      timestamptz NOT NULL DEFAULT now()
        );

        CREATE TABLE validation_links (
          queue_id               uuid NOT NULL,
          type                   text NOT NULL CHECK (type IN ('initial_document_validation', 'document_validation')),
          organization_id        uuid NOT NULL,
          workspace_id           uuid NOT NULL,
          url                    text NOT NULL,
          signature_verification text NOT NULL CHECK (signature_verification IN ('enabled', 'disabled')),
          created_at             timestamptz NOT NULL DEFAULT now(),
          updated_at             timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (queue_id, type)
        );

        CREATE TABLE deliveries (
          id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
          webhook_id        uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
          event_id          uuid NOT NULL,
          type              text NOT NULL,
          -- The exact body sent and signed, so that retries are byte for byte the same.
          body              text NOT NULL,
          status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
          attempts          integer NOT NULL DEFAULT 0,
          -- 1 + the retry schedule's length at creation; a manual retry of a finished delivery grants one more.
          max_attempts      integer NOT NULL,
          -- When the next attempt is due; while a sender holds the lease, when the lease expires. Null once finished.
          next_attempt_at   timestamptz,
          lease_token       uuid,
          manual_retry      boolean NOT NULL DEFAULT false,
          event_occurred_at timestamptz NOT NULL,
          last_error        text,
          created_at        timestamptz NOT NULL DEFAULT now(),
          updated_at        timestamptz NOT NULL DEFAULT now(),
          completed_at      timestamptz,
          UNIQUE (event_id, webhook_id)
        );
        CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
        CREATE INDEX deliveries_of_webhook ON deliveries (webhook_id, created_at DESC, id);

        CREATE TABLE delivery_attempts (
          delivery_id      uuid NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
          number           integer NOT NULL,
          started_at       timestamptz NOT NULL,
          duration_ms      integer NOT NULL,
          status_code      integer,
          error            text,
          response_excerpt text,
          succeeded        boolean NOT NULL,
          manual           boolean NOT NULL DEFAULT false,
          PRIMARY KEY (delivery_id, number)
        );
      `,
  ),
  sqlMigration(
    "0002-key-rotation-grace-receiver-health-failure-policy",
    `
        -- A key's id names it in events and answers (never its material). On rotation the previous key moves,
        -- still sealed, beside the new one and signs too until previous_valid_until.
        ALTER TABLE signing_keys
          ADD COLUMN key_id                   uuid NOT NULL DEFAULT gen_random_uuid(),
          ADD COLUMN previous_key_id          uuid,
          ADD COLUMN previous_sealed_key      text,
          ADD COLUMN previous_kek_fingerprint text,
          ADD COLUMN previous_valid_until     timestamptz;

        -- Receiver health: the current run of failures (null after a success) and the automatic disable.
        ALTER TABLE webhooks
          ADD COLUMN status          text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
          ADD COLUMN disabled_at     timestamptz,
          ADD COLUMN disabled_reason text,
          ADD COLUMN last_success_at timestamptz,
          ADD COLUMN failing_since   timestamptz;
        CREATE INDEX webhooks_failing ON webhooks (failing_since) WHERE status = 'active' AND failing_since IS NOT NULL;

        -- The webhook of each attempt, so that one webhook's last hour is one index range (GET …/health).
        ALTER TABLE delivery_attempts ADD COLUMN webhook_id uuid;
        UPDATE delivery_attempts a SET webhook_id = d.webhook_id FROM deliveries d WHERE d.id = a.delivery_id;
        ALTER TABLE delivery_attempts ALTER COLUMN webhook_id SET NOT NULL;
        CREATE INDEX delivery_attempts_of_webhook ON delivery_attempts (webhook_id, started_at);

        ALTER TABLE validation_links
          ADD COLUMN failure_policy text NOT NULL DEFAULT 'allow' CHECK (failure_policy IN ('allow', 'block'));
      `,
  ),
  // The trace context of the event's handling, so that every attempt of a delivery, retries included, joins the
  // trace of the request that caused the event.
  sqlMigration("0003-delivery-trace-context", "ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS trace_context jsonb"),
  // Issue 41: which validator applies to a queue becomes the document service's configuration; this service keeps the
  // receivers (targets) and calls one by id. A target never changes (a new URL is a new target), so the caller can
  // commit its id with its own configuration. The links saved before are targets too, under an id derived from the
  // link's key (md5 of `link/<queue_id>/<type>`), which the document service can derive the same way from its own rows;
  // a validation webhook of the deprecated API is a target under its own id. Both keep following PATCHes of them.
  sqlMigration(
    "0004-validation-targets",
    `
        CREATE TABLE IF NOT EXISTS validation_targets (
          id                     uuid PRIMARY KEY,
          organization_id        uuid NOT NULL,
          url                    text NOT NULL,
          signature_verification text NOT NULL CHECK (signature_verification IN ('enabled', 'disabled')),
          created_at             timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX IF NOT EXISTS validation_targets_of_organization ON validation_targets (organization_id);
        ALTER TABLE validation_links
          ADD COLUMN IF NOT EXISTS target_id uuid GENERATED ALWAYS AS (md5('link/' || queue_id::text || '/' || type)::uuid) STORED;
        CREATE UNIQUE INDEX IF NOT EXISTS validation_links_target ON validation_links (target_id);
      `,
  ),
  // Issue 41: which validator applies to a queue is the document service's queue configuration. The links saved here
  // become targets under the ids the document service derives from its rows (md5 of `link/<queue_id>/<type>`), with
  // their URL and signing; the table goes, so nothing here decides which validator applies to a queue any more.
  sqlMigration(
    "0005-links-become-targets",
    `
        INSERT INTO validation_targets (id, organization_id, url, signature_verification, created_at)
          SELECT target_id, organization_id, url, signature_verification, created_at FROM validation_links
          ON CONFLICT (id) DO NOTHING;
        DROP TABLE validation_links;
      `,
  ),
];
