import type { ThrottleKey, ThrottleState } from "../domain/throttle.js";
import type { Sql } from "./sql.js";

const COLUMNS = `failures, window_started_at AS "windowStartedAt", blocked_until AS "blockedUntil", lockouts, updated_at AS "updatedAt"`;

export class ThrottleStore {
  constructor(private readonly sql: Sql) {}

  async read(keys: ThrottleKey[]): Promise<ThrottleState[]> {
    if (keys.length === 0) return [];
    return this.sql.rows<ThrottleState>(
      `SELECT ${COLUMNS} FROM throttles t
       JOIN unnest($1::text[], $2::bytea[]) AS k (scope, subject) ON t.scope = k.scope AND t.subject = k.subject`,
      [keys.map((key) => key.scope), keys.map((key) => key.subject)],
    );
  }

  /** Read, change and write one subject's state under a row lock, so concurrent failures all count. */
  async update(key: ThrottleKey, change: (state: ThrottleState | undefined) => ThrottleState): Promise<void> {
    await this.sql.transaction(async (tx) => {
      const created = await this.sql.rows(
        `INSERT INTO throttles (scope, subject, failures, window_started_at, lockouts, updated_at)
         VALUES ($1, $2, 0, now(), 0, now()) ON CONFLICT DO NOTHING RETURNING scope`,
        [key.scope, key.subject],
        tx,
      );
      const current = await this.sql.one<ThrottleState>(
        `SELECT ${COLUMNS} FROM throttles WHERE scope = $1 AND subject = $2 FOR UPDATE`,
        [key.scope, key.subject],
        tx,
      );
      const next = change(created.length ? undefined : current);
      await this.sql.rows(
        `UPDATE throttles SET failures = $3, window_started_at = $4, blocked_until = $5, lockouts = $6, updated_at = $7
         WHERE scope = $1 AND subject = $2 RETURNING scope`,
        [key.scope, key.subject, next.failures, next.windowStartedAt, next.blockedUntil, next.lockouts, next.updatedAt],
        tx,
      );
    });
  }

  async clear(key: ThrottleKey): Promise<void> {
    await this.sql.rows("DELETE FROM throttles WHERE scope = $1 AND subject = $2 RETURNING scope", [key.scope, key.subject]);
  }
}
