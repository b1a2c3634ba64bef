import { type Migration, sqlMigration } from "@docex/kit/db";

/** Schema of the intake database, in order. The kit's outbox tables are added in front (unused: intake publishes nothing). */
export const migrations: Migration[] = [
  sqlMigration(
    "0001-intake",
    `
        -- Messages begun per sender (envelope address, lowercase) in one calendar minute: the per-sender limit holds
        -- across replicas. Rows of past minutes are removed as new ones are counted.
        CREATE TABLE sender_minutes (
          sender        text NOT NULL,
          minute_start  timestamptz NOT NULL,
          messages      integer NOT NULL DEFAULT 0,
          PRIMARY KEY (sender, minute_start)
        );

        -- One row per message the intake answered 250 for: the queue's trail of mail, with what became of it
        -- (documents: how many attachments were kept; no_attachment: none was of an accepted type; bounce-free).
        CREATE TABLE intake_messages (
          id           bigserial PRIMARY KEY,
          queue_id     uuid NOT NULL,
          message_id   text NOT NULL,
          sender       text NOT NULL,
          outcome      text NOT NULL CHECK (outcome IN ('documents', 'no_attachment')),
          documents    integer NOT NULL,
          skipped      jsonb NOT NULL DEFAULT '[]',
          received_at  timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX intake_messages_by_queue ON intake_messages (queue_id, received_at);
      `,
  ),
];
