import { type Migration, sqlMigration } from "@docex/kit/db";

/** Schema of the learning database, in order. The kit's outbox tables are added in front. */
export const migrations: Migration[] = [
  sqlMigration(
    "0001-feedback-and-field-memory",
    `
        -- Every learn and relearn as it was received; its id is the id of the learning.feedback event.
        CREATE TABLE feedback (
          id               uuid PRIMARY KEY,
          kind             text NOT NULL CHECK (kind IN ('learn', 'relearn')),
          organization_id  uuid NOT NULL,
          queue_id         uuid NOT NULL,
          document_id      uuid,
          user_id          uuid NOT NULL,
          -- {tax_id, register_id, name} as given or read from the document.
          supplier         jsonb NOT NULL,
          -- The memory's key of the supplier; null when nothing identified one.
          supplier_key     text,
          payload          jsonb NOT NULL,
          created_at       timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX feedback_by_queue ON feedback (queue_id, created_at);

        -- Values of a supplier's fields that people confirmed by learn; only the latest few per field are kept.
        CREATE TABLE field_confirmations (
          seq           bigserial PRIMARY KEY,
          queue_id      uuid NOT NULL,
          supplier_key  text NOT NULL,
          field_key     text NOT NULL,
          -- {value, values}: the text and the further values of a multi-value field.
          content       jsonb NOT NULL,
          feedback_id   uuid NOT NULL REFERENCES feedback (id),
          confirmed_at  timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX field_confirmations_latest ON field_confirmations (queue_id, supplier_key, field_key, seq DESC);

        -- Values relearn pinned; they win over learned ones.
        CREATE TABLE pinned_fields (
          queue_id      uuid NOT NULL,
          supplier_key  text NOT NULL,
          field_key     text NOT NULL,
          value         text NOT NULL,
          feedback_id   uuid NOT NULL REFERENCES feedback (id),
          pinned_at     timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (queue_id, supplier_key, field_key)
        );

        CREATE TABLE supplier_preferences (
          queue_id               uuid NOT NULL,
          supplier_key           text NOT NULL,
          line_items_visibility  text CHECK (line_items_visibility IN ('visible', 'hidden')),
          tax_detail_visibility  text CHECK (tax_detail_visibility IN ('visible', 'hidden')),
          updated_at             timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (queue_id, supplier_key)
        );

        -- What learning did with each document.extracted event it handled.
        CREATE TABLE learned_fills (
          event_id          uuid PRIMARY KEY,
          document_id       uuid NOT NULL,
          queue_id          uuid NOT NULL,
          supplier_key      text,
          -- applied | nothing_to_fill | no_supplier | document_not_found | a refusal of the document service
          outcome           text NOT NULL,
          filled_keys       text[] NOT NULL DEFAULT '{}',
          document_version  integer,
          attempts          integer NOT NULL DEFAULT 0,
          created_at        timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX learned_fills_by_document ON learned_fills (document_id);
      `,
  ),
];
