import type { Sql, Tx } from "@docex/kit/db";

/** Social-login id_tokens already used (SHA-256 digests), kept until they expire so that each logs in once. */
export class UsedIdTokenStore {
  constructor(private readonly sql: Sql) {}

  async isUsed(digest: Buffer): Promise<boolean> {
    return (await this.sql.rows("SELECT 1 AS used FROM used_id_tokens WHERE digest = $1", [digest])).length > 0;
  }

  /** Marks the token used inside `tx`; false when it was used already (also by a login running at the same time). */
  async use(tx: Tx, digest: Buffer, usedAt: Date, expiresAt: Date): Promise<boolean> {
    const inserted = await this.sql.rows(
      "INSERT INTO used_id_tokens (digest, used_at, expires_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING digest",
      [digest, usedAt, expiresAt],
      tx,
    );
    return inserted.length === 1;
  }
}
