import type { Sql } from "@docex/kit/db";
import type { ThrottleKey, ThrottleState } from "../domain/throttle.js";

const COLUMNS = `failures, window_started_at AS "windowStartedAt", blocked_until AS "blockedUntil", lockouts, updated_at AS "updatedAt"`;

interface LockedRow extends ThrottleState {
  scope: string;
  subject: Buffer;
}

const idOf = (scope: string, subject: Buffer) => `${scope}:${subject.toString("hex")}`;

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

  /**
   * Reads, changes and writes the states of several subjects in one transaction, under row locks taken in
   * a fixed order (so concurrent updates of overlapping keys neither lose a count nor deadlock). `change`
   * gets the states in the order of `keys` (undefined for a subject seen for the first time) and returns the
   * next ones, undefined for "leave it", or undefined altogether to write nothing.
   */
  async update(
    keys: ThrottleKey[],
    change: (states: Array<ThrottleState | undefined>) => Array<ThrottleState | undefined> | undefined,
  ): Promise<void> {
    if (keys.length === 0) return;
    const ordered = [...new Map(keys.map((key) => [idOf(key.scope, key.subject), key])).entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, key]) => key);
    const scopes = ordered.map((key) => key.scope);
    const subjects = ordered.map((key) => key.subject);
    await this.sql.transaction(async (tx) => {
      const created = await this.sql.rows<{ scope: string; subject: Buffer }>(
        `INSERT INTO throttles (scope, subject, failures, window_started_at, lockouts, updated_at)
         SELECT k.scope, k.subject, 0, now(), 0, now() FROM unnest($1::text[], $2::bytea[]) WITH ORDINALITY AS k (scope, subject, n)
         ORDER BY k.n
         ON CONFLICT DO NOTHING RETURNING scope, subject`,
        [scopes, subjects],
        tx,
      );
      const fresh = new Set(created.map((row) => idOf(row.scope, row.subject)));
      const locked = await this.sql.rows<LockedRow>(
        `SELECT t.scope, t.subject, ${COLUMNS} FROM throttles t
         JOIN unnest($1::text[], $2::bytea[]) AS k (scope, subject) ON t.scope = k.scope AND t.subject = k.subject
         ORDER BY t.scope COLLATE "C", t.subject FOR UPDATE OF t`,
        [scopes, subjects],
        tx,
      );
      const byId = new Map(locked.map((row) => [idOf(row.scope, row.subject), row]));
      const current = keys.map((key) => {
        const id = idOf(key.scope, key.subject);
        const row = byId.get(id);
        if (!row || fresh.has(id)) return undefined;
        return {
          failures: row.failures,
          windowStartedAt: row.windowStartedAt,
          blockedUntil: row.blockedUntil,
          lockouts: row.lockouts,
          updatedAt: row.updatedAt,
        };
      });
      const next = change(current) ?? [];
      const written = new Set<string>();
      const rows: Array<{ key: ThrottleKey; state: ThrottleState }> = [];
      keys.forEach((key, index) => {
        const state = next[index];
        const id = idOf(key.scope, key.subject);
        if (state && !written.has(id)) {
          written.add(id);
          rows.push({ key, state });
        }
      });
      if (rows.length) {
        await this.sql.rows(
          `UPDATE throttles t SET failures = v.failures, window_started_at = v.window_started_at, blocked_until = v.blocked_until,
             lockouts = v.lockouts, updated_at = v.updated_at
           FROM unnest($1::text[], $2::bytea[], $3::int[], $4::timestamptz[], $5::timestamptz[], $6::int[], $7::timestamptz[])
             AS v (scope, subject, failures, window_started_at, blocked_until, lockouts, updated_at)
           WHERE t.scope = v.scope AND t.subject = v.subject RETURNING t.scope`,
          [
            rows.map(({ key }) => key.scope),
            rows.map(({ key }) => key.subject),
            rows.map(({ state }) => state.failures),
            rows.map(({ state }) => state.windowStartedAt),
            rows.map(({ state }) => state.blockedUntil),
            rows.map(({ state }) => state.lockouts),
            rows.map(({ state }) => state.updatedAt),
          ],
          tx,
        );
      }
      // A subject seen for the first time and left unchanged leaves no row behind.
      const unused = ordered.filter((key) => fresh.has(idOf(key.scope, key.subject)) && !written.has(idOf(key.scope, key.subject)));
      if (unused.length) {
        await this.sql.rows(
          `DELETE FROM throttles t USING unnest($1::text[], $2::bytea[]) AS k (scope, subject)
           WHERE t.scope = k.scope AND t.subject = k.subject RETURNING t.scope`,
          [unused.map((key) => key.scope), unused.map((key) => key.subject)],
          tx,
        );
      }
    });
  }

  async clear(keys: ThrottleKey[]): Promise<void> {
    if (keys.length === 0) return;
    await this.sql.rows(
      `DELETE FROM throttles t USING unnest($1::text[], $2::bytea[]) AS k (scope, subject)
       WHERE t.scope = k.scope AND t.subject = k.subject RETURNING t.scope`,
      [keys.map((key) => key.scope), keys.map((key) => key.subject)],
    );
  }
}
