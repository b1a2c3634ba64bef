import { type Migration, sqlMigration } from "@docex/kit/db";

/** Schema of the automation database, in order. The kit's outbox tables are added in front. */
export const migrations: Migration[] = [
  sqlMigration(
    "0001-settings-rules-runs-registers",
    `
        -- One row per queue that was ever configured; a queue without a row has the defaults (all disabled).
        CREATE TABLE queue_settings (
          queue_id                      uuid PRIMARY KEY,
          organization_id               uuid NOT NULL,
          accounting_automation         text NOT NULL DEFAULT 'disabled' CHECK (accounting_automation IN ('enabled', 'disabled')),
          automation_rules              text NOT NULL DEFAULT 'disabled' CHECK (automation_rules IN ('enabled', 'disabled')),
          extraction_evaluation_status  text NOT NULL DEFAULT 'disabled' CHECK (extraction_evaluation_status IN ('enabled', 'disabled')),
          document_confidence           integer CHECK (document_confidence IN (50, 60, 70, 80, 90, 95, 99)),
          evaluation_fields             jsonb NOT NULL DEFAULT '[]',
          updated_at                    timestamptz NOT NULL DEFAULT now()
        );

        CREATE TABLE rules (
          id               uuid PRIMARY KEY,
          queue_id         uuid NOT NULL,
          organization_id  uuid NOT NULL,
          kind             text NOT NULL CHECK (kind IN ('accounting', 'approval')),
          name             text NOT NULL,
          action           text NOT NULL,
          params           jsonb NOT NULL,
          conditions       jsonb NOT NULL,
          position         integer NOT NULL CHECK (position >= 1),
          created_at       timestamptz NOT NULL DEFAULT now(),
          updated_at       timestamptz NOT NULL DEFAULT now(),
          -- Deferred, so a reorder can move every position inside one transaction.
          CONSTRAINT rules_position_unique UNIQUE (queue_id, kind, position) DEFERRABLE INITIALLY DEFERRED
        );

        -- Projection of register.updated: which registers belong to which queue, for in_register conditions.
        CREATE TABLE queue_registers (
          register_id      uuid PRIMARY KEY,
          queue_id         uuid NOT NULL,
          organization_id  uuid NOT NULL,
          name             text NOT NULL,
          seen_at          timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX queue_registers_by_queue ON queue_registers (queue_id);

        -- One row per document.extracted handled: what automation decided and what the document service answered.
        CREATE TABLE document_runs (
          event_id          uuid PRIMARY KEY,
          document_id       uuid NOT NULL,
          queue_id          uuid NOT NULL,
          organization_id   uuid NOT NULL,
          document_version  integer NOT NULL,
          outcome           text NOT NULL,
          reason            text NOT NULL DEFAULT '',
          applied_rules     uuid[] NOT NULL DEFAULT '{}',
          status            text,
          approvers         uuid[] NOT NULL DEFAULT '{}',
          approval_route    jsonb,
          attempts          integer NOT NULL DEFAULT 0,
          created_at        timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX document_runs_by_document ON document_runs (document_id, created_at);
      `,
  ),
];
