import { type Migration, sqlMigration } from "@docex/kit/db";
import { duplicateDetectionMigration } from "./migration-0003-duplicates.js";
import { quotasMigration } from "./migration-0009-quotas.js";
import { documentListsMigration } from "./migration-0011-document-lists.js";
import { emailIntakeMigration } from "./migration-0013-email-intake.js";
import { exportsMigration } from "./migration-0014-exports.js";
import { paymentBatchesMigration } from "./migration-0015-payment-batches.js";
import { automationBlockersMigration } from "./migration-0017-automation-blockers.js";
import { exportFilesPurgedMigration } from "./migration-0020-export-files-purged.js";
import { learnFromValidationMigration } from "./migration-0022-learn-from-validation.js";

/** Schema of the document database, in order. The kit's outbox tables are added in front. */
export const migrations: Migration[] = [
  sqlMigration(
    "0001-hierarchy-and-documents",
    `
        -- Organizations belong to membership; this is the projection of organization.created (and of
        -- membership's answers) that lets ResolveEntity find them by humanized id.
        CREATE TABLE organizations (
          id            uuid PRIMARY KEY,
          humanized_id  text NOT NULL UNIQUE,
          name          text NOT NULL,
          seen_at       timestamptz NOT NULL DEFAULT now()
        );

        CREATE TABLE workspaces (
          id               uuid PRIMARY KEY,
          humanized_id     text NOT NULL UNIQUE,
          organization_id  uuid NOT NULL,
          name             text NOT NULL,
          created_at       timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX workspaces_by_organization ON workspaces (organization_id);

        CREATE TABLE queues (
          id                 uuid PRIMARY KEY,
          humanized_id       text NOT NULL UNIQUE,
          workspace_id       uuid NOT NULL REFERENCES workspaces (id),
          organization_id    uuid NOT NULL,
          name               text NOT NULL,
          annotation_schema  jsonb NOT NULL,
          created_at         timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX queues_by_workspace ON queues (workspace_id);

        CREATE TABLE documents (
          id               uuid PRIMARY KEY,
          queue_id         uuid NOT NULL REFERENCES queues (id),
          workspace_id     uuid NOT NULL,
          organization_id  uuid NOT NULL,
          file_name        text NOT NULL,
          status           text NOT NULL CHECK (status IN ('received', 'extracting', 'extraction_failed', 'to_validate',
                             'in_approval', 'ready_to_export', 'exporting', 'exported', 'export_failed', 'postponed',
                             'rejected', 'deleted')),
          annotations      jsonb NOT NULL DEFAULT '[]',
          messages         jsonb NOT NULL DEFAULT '[]',
          options          jsonb NOT NULL DEFAULT '{}',
          approvers        uuid[] NOT NULL DEFAULT '{}',
          confidence       double precision CHECK (confidence BETWEEN 0 AND 100),
          -- Grows by one with every change: the base of optimistic concurrency for other contexts' changes.
          version          integer NOT NULL DEFAULT 1,
          created_at       timestamptz NOT NULL DEFAULT now(),
          updated_at       timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX documents_by_queue ON documents (queue_id, created_at, id);
        CREATE INDEX documents_by_queue_and_status ON documents (queue_id, status, created_at, id);
        CREATE INDEX documents_by_approver ON documents USING gin (approvers);

        -- Every change of a document, and every refused change another context asked for: the audit trail,
        -- and the memory of idempotency keys.
        CREATE TABLE document_changes (
          seq              bigserial PRIMARY KEY,
          document_id      uuid NOT NULL REFERENCES documents (id),
          source           text NOT NULL,
          user_id          uuid,
          idempotency_key  text,
          applied          boolean NOT NULL,
          reason           text NOT NULL DEFAULT '',
          version          integer NOT NULL,
          changed          text[] NOT NULL DEFAULT '{}',
          applied_rules    uuid[] NOT NULL DEFAULT '{}',
          created_at       timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX document_changes_by_document ON document_changes (document_id, seq);
        CREATE UNIQUE INDEX document_changes_idempotency ON document_changes (document_id, source, idempotency_key)
          WHERE idempotency_key IS NOT NULL;
      `,
  ),
  sqlMigration(
    "0002-initial-validation-jobs",
    `
        -- initial_document_validation still to run for a document, written with its extraction. A runner claims a
        -- due job by moving next_attempt_at past its budget (a lease: a runner that dies leaves it due again) and
        -- counting the attempt; attempts also fences a runner whose lease ran out.
        CREATE TABLE initial_validation_jobs (
          document_id      uuid PRIMARY KEY REFERENCES documents (id),
          attempts         integer NOT NULL DEFAULT 0,
          next_attempt_at  timestamptz NOT NULL DEFAULT now(),
          last_error       text,
          created_at       timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX initial_validation_jobs_due ON initial_validation_jobs (next_attempt_at);
      `,
  ),
  duplicateDetectionMigration,
  sqlMigration(
    "0004-validation-link-projection",
    `
        -- The webhook service's external validation links as its configuration.changed events tell them: which
        -- queues have a validator of which type, under which failure policy. Read only when the webhook service
        -- cannot be asked. A removed link stays as a row with present = false, so that an older event arriving
        -- late (changed_at) cannot bring it back.
        CREATE TABLE validation_links (
          queue_id        uuid NOT NULL,
          type            text NOT NULL,
          present         boolean NOT NULL,
          failure_policy  text NOT NULL CHECK (failure_policy IN ('allow', 'block')),
          changed_at      timestamptz NOT NULL,
          PRIMARY KEY (queue_id, type)
        );
      `,
  ),
  sqlMigration(
    "0005-kept-files-and-extraction-engine",
    `
        -- Queues that exist keep what they did before (an outside engine posts /extraction); new ones default to the
        -- built-in extraction service.
        ALTER TABLE queues ADD COLUMN IF NOT EXISTS extraction_engine text NOT NULL DEFAULT 'external'
          CHECK (extraction_engine IN ('builtin', 'external'));
        ALTER TABLE queues ALTER COLUMN extraction_engine SET DEFAULT 'builtin';

        -- The kept file: its sniffed media type and size (both null when there is none, or no longer one), and when
        -- the document was deleted, which starts its file's retention period.
        ALTER TABLE documents
          ADD COLUMN IF NOT EXISTS file_content_type  text,
          ADD COLUMN IF NOT EXISTS file_size          bigint CHECK (file_size >= 0),
          ADD COLUMN IF NOT EXISTS deleted_at         timestamptz;
        CREATE INDEX IF NOT EXISTS documents_files_to_purge ON documents (deleted_at)
          WHERE status = 'deleted' AND file_size IS NOT NULL;

        -- The Postgres file store: a file's bytes in chunks of at most 256 KiB, under its key (the document id).
        CREATE TABLE IF NOT EXISTS file_chunks (
          file_key    text NOT NULL,
          seq         integer NOT NULL,
          data        bytea NOT NULL,
          created_at  timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (file_key, seq)
        );
        ALTER TABLE file_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
      `,
  ),
  sqlMigration(
    "0006-automation-switch-projection",
    `
        -- Automation's switches of each queue, followed from its configuration.changed events: one row per switch
        -- (its state as the event shows it), the newest event winning. A queue without a row shows the defaults.
        CREATE TABLE IF NOT EXISTS automation_switches (
          queue_id    uuid NOT NULL,
          resource    text NOT NULL CHECK (resource IN ('accounting_automation', 'automation_rules', 'extraction_evaluation')),
          state       jsonb NOT NULL,
          changed_at  timestamptz NOT NULL,
          PRIMARY KEY (queue_id, resource)
        );

        -- The queues that exist now: their switches may have been set before automation published events, so
        -- automation is asked once for each (AutomationSwitchSeed, at start). Queues created later are not listed.
        CREATE TABLE IF NOT EXISTS automation_switch_seeds (queue_id uuid PRIMARY KEY);
        INSERT INTO automation_switch_seeds (queue_id) SELECT id FROM queues ON CONFLICT DO NOTHING;
      `,
  ),
  sqlMigration(
    "0007-approval-stages",
    `
        -- The approval route a document follows (automation's assign_approval_route): its stages, the current one, and
        -- each approver's decision. Null: no route (approvers, if any, form one stage needing one approval).
        ALTER TABLE documents ADD COLUMN IF NOT EXISTS approval jsonb;
      `,
  ),
  sqlMigration(
    "0008-validator-projection",
    `
        -- The validation webhooks of the deprecated API (on a document, queue, workspace or organization), followed
        -- from the webhook service's configuration.changed events beside validation_links: with both, an edit whose
        -- document has no validator is not asked about (no Validate call). A removed webhook stays with present = false.
        CREATE TABLE IF NOT EXISTS validation_webhooks (
          webhook_id   uuid PRIMARY KEY,
          type         text NOT NULL,
          entity_type  text NOT NULL CHECK (entity_type IN ('document', 'queue', 'workspace', 'organization')),
          entity_id    uuid NOT NULL,
          present      boolean NOT NULL,
          changed_at   timestamptz NOT NULL
        );
        CREATE INDEX IF NOT EXISTS validation_webhooks_entity ON validation_webhooks (entity_id, type) WHERE present;

        -- Validators the webhook service said to expect (ExpectValidator) before committing them, ahead of their
        -- events: they count as present until a Validate call made long after the note finds none.
        CREATE TABLE IF NOT EXISTS validator_notes (
          entity_type  text NOT NULL,
          entity_id    uuid NOT NULL,
          type         text NOT NULL,
          noted_at     timestamptz NOT NULL,
          PRIMARY KEY (entity_id, type, entity_type)
        );

        -- Whether every validator that predates these projections is in them: until the webhook service has been
        -- asked (ListValidators, at start), every edit asks Validate as before.
        CREATE TABLE IF NOT EXISTS validator_projection (
          singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
          seeded_at  timestamptz
        );
        INSERT INTO validator_projection (singleton, seeded_at) VALUES (true, NULL) ON CONFLICT DO NOTHING;
      `,
  ),
  quotasMigration,
  sqlMigration(
    "0010-document-lifetime",
    `
        -- Days a document of the queue is kept (from its upload) before the lifetime sweep purges it; null: kept.
        ALTER TABLE queues ADD COLUMN IF NOT EXISTS document_lifetime_days integer
          CHECK (document_lifetime_days BETWEEN 1 AND 3650);
      `,
  ),
  documentListsMigration,
  emailIntakeMigration,
  exportsMigration,
  paymentBatchesMigration,
  sqlMigration(
    "0016-validation-links-owned",
    `
        -- Issue 41: which validator applies to a queue, and its failure policy, is queue configuration kept here. The
        -- receiver (URL, signing, SSRF checks, breaker) is a target in the webhook service, named by target_id. Links
        -- saved there before are taken from the projection of its events under the ids it derives for them (md5 of
        -- link/<queue_id>/<type>), which its migration 0005 gives their targets.
        CREATE TABLE IF NOT EXISTS queue_validation_links (
          queue_id         uuid NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
          type             text NOT NULL CHECK (type IN ('document_validation', 'initial_document_validation')),
          organization_id  uuid NOT NULL,
          target_id        uuid NOT NULL,
          failure_policy   text NOT NULL CHECK (failure_policy IN ('allow', 'block')),
          created_at       timestamptz NOT NULL DEFAULT now(),
          updated_at       timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (queue_id, type)
        );
        INSERT INTO queue_validation_links (queue_id, type, organization_id, target_id, failure_policy, created_at, updated_at)
          SELECT l.queue_id, l.type, q.organization_id, md5('link/' || l.queue_id::text || '/' || l.type)::uuid, l.failure_policy,
                 l.changed_at, l.changed_at
          FROM validation_links l JOIN queues q ON q.id = l.queue_id
          WHERE l.present
          ON CONFLICT DO NOTHING;
        DROP TABLE validation_links;
      `,
  ),
  automationBlockersMigration,
  sqlMigration(
    "0018-validation-webhooks-owned",
    `
        -- Issue 41: which validation webhook of the deprecated API applies to a document is this service's
        -- configuration, as the queues' links are. The projection of the webhook service's events (complete since
        -- migration 0008's seed) becomes it: each webhook is placed in the hierarchy (its queue and workspace), so
        -- that a queue's validators are read with the queue; the webhook service tells this service of every change
        -- after its commit (RecordValidationWebhook), so the notes and the seed go. Rows of entities that no longer
        -- exist go too.
        ALTER TABLE validation_webhooks
          ADD COLUMN IF NOT EXISTS organization_id uuid,
          ADD COLUMN IF NOT EXISTS workspace_id uuid,
          ADD COLUMN IF NOT EXISTS queue_id uuid;
        UPDATE validation_webhooks w SET organization_id = q.organization_id, workspace_id = q.workspace_id, queue_id = q.id
          FROM documents d JOIN queues q ON q.id = d.queue_id
          WHERE w.entity_type = 'document' AND d.id = w.entity_id;
        UPDATE validation_webhooks w SET organization_id = q.organization_id, workspace_id = q.workspace_id, queue_id = q.id
          FROM queues q WHERE w.entity_type = 'queue' AND q.id = w.entity_id;
        UPDATE validation_webhooks w SET organization_id = ws.organization_id, workspace_id = ws.id
          FROM workspaces ws WHERE w.entity_type = 'workspace' AND ws.id = w.entity_id;
        UPDATE validation_webhooks SET organization_id = entity_id WHERE entity_type = 'organization';
        DELETE FROM validation_webhooks WHERE organization_id IS NULL;
        ALTER TABLE validation_webhooks ALTER COLUMN organization_id SET NOT NULL;
        CREATE INDEX IF NOT EXISTS validation_webhooks_queue ON validation_webhooks (queue_id) WHERE present;
        CREATE INDEX IF NOT EXISTS validation_webhooks_workspace ON validation_webhooks (workspace_id);
        DROP TABLE IF EXISTS validator_notes;
        DROP TABLE IF EXISTS validator_projection;
      `,
  ),
  exportFilesPurgedMigration,
  learnFromValidationMigration,
];
