import { sqlMigration } from "@docex/kit/db";

/**
 * Email intake (issue 38): each queue's inbox address and who may write to it, and where each document came from.
 * A document taken from a mail carries the key the intake derived from the message (Message-ID and attachment):
 * a mail the sender retries after a lost answer finds its documents by that key instead of making them twice.
 */
export const emailIntakeMigration = sqlMigration(
  "0013-email-intake",
  `
    -- The random part of <humanized_id>.<inbox_token>@<INTAKE_MAIL_DOMAIN>: 64 bits from a random UUID. Rotating it
    -- stops the old address at once. Empty inbox_allowed_senders: anyone may send.
    ALTER TABLE queues ADD COLUMN IF NOT EXISTS inbox_token text NOT NULL
      DEFAULT substr(md5(gen_random_uuid()::text), 1, 16);
    CREATE UNIQUE INDEX IF NOT EXISTS queues_by_inbox_token ON queues (inbox_token);
    ALTER TABLE queues ADD COLUMN IF NOT EXISTS inbox_allowed_senders text[] NOT NULL DEFAULT '{}';

    -- {channel: "api"} for uploads; {channel: "email", from, subject, message_id, received_at, auth} for mail.
    ALTER TABLE documents ADD COLUMN IF NOT EXISTS source jsonb NOT NULL DEFAULT '{"channel": "api"}';
    ALTER TABLE documents ADD COLUMN IF NOT EXISTS source_key text;
    CREATE UNIQUE INDEX IF NOT EXISTS documents_by_source_key ON documents (queue_id, source_key) WHERE source_key IS NOT NULL;
  `,
);
