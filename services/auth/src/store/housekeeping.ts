import type { Sql } from "@docex/kit/db";

/** Deletes what can no longer be used: expired secrets, families, trusted sources, idle throttles, used id_tokens past their expiry, old keys. */
export async function deleteExpired(sql: Sql, now: Date, retiredKeysBefore: Date): Promise<void> {
  const dayAgo = new Date(now.getTime() - 24 * 3600 * 1000);
  await sql.rows("DELETE FROM one_time_secrets WHERE expires_at < $1 RETURNING id", [now]);
  await sql.rows("DELETE FROM trusted_sources WHERE expires_at < $1 RETURNING digest", [now]);
  await sql.rows("DELETE FROM refresh_families WHERE expires_at < $1 RETURNING id", [now]);
  await sql.rows("DELETE FROM throttles WHERE updated_at < $1 AND (blocked_until IS NULL OR blocked_until < $2) RETURNING scope", [
    dayAgo,
    now,
  ]);
  await sql.rows("DELETE FROM used_id_tokens WHERE expires_at < $1 RETURNING digest", [now]);
  await sql.rows("DELETE FROM signing_keys WHERE retired_at < $1 RETURNING kid", [retiredKeysBefore]);
}
