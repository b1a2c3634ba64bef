import type { Sql } from "@docex/kit/db";

export interface MessageRecord {
  queueId: string;
  messageId: string;
  sender: string;
  outcome: "documents" | "no_attachment";
  documents: number;
  /** Attachments not kept, and why (not an accepted type, too large, a duplicate the queue rejects). */
  skipped: { file_name: string; reason: string }[];
}

/** The per-sender counters and the trail of messages taken. */
export class IntakeStore {
  constructor(private readonly sql: Sql) {}

  /** Counts a message of `sender` in the current minute; answers how many it has begun in that minute, this one included. */
  async countMessage(sender: string): Promise<number> {
    const row = await this.sql.one<{ messages: number }>(
      `INSERT INTO sender_minutes (sender, minute_start, messages) VALUES ($1, date_trunc('minute', now()), 1)
       ON CONFLICT (sender, minute_start) DO UPDATE SET messages = sender_minutes.messages + 1
       RETURNING messages`,
      [sender],
    );
    // Past minutes are of no use; a few rows at a time keeps the table small without a sweep of its own.
    await this.sql.rows(
      `DELETE FROM sender_minutes WHERE ctid IN (SELECT ctid FROM sender_minutes WHERE minute_start < date_trunc('minute', now()) LIMIT 20) RETURNING 1`,
    );
    return row?.messages ?? 1;
  }

  async recordMessage(record: MessageRecord): Promise<void> {
    await this.sql.rows(
      `INSERT INTO intake_messages (queue_id, message_id, sender, outcome, documents, skipped) VALUES ($1, $2, $3, $4, $5, $6::jsonb) RETURNING id`,
      [record.queueId, record.messageId, record.sender, record.outcome, record.documents, JSON.stringify(record.skipped)],
    );
  }
}
