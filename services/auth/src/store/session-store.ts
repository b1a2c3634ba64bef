import type { Sql, Tx } from "@docex/kit/db";
import type { RefreshFamily, RefreshTokenRecord } from "../domain/sessions.js";

export class SessionStore {
  constructor(private readonly sql: Sql) {}

  async createFamily(tx: Tx, family: RefreshFamily, firstDigest: Buffer): Promise<void> {
    await this.sql.rows(
      `INSERT INTO refresh_families (id, user_id, amr, created_at, expires_at) VALUES ($1, $2, $3::text[], $4, $5) RETURNING id`,
      [family.id, family.userId, family.amr, family.createdAt, family.expiresAt],
      tx,
    );
    await this.addToken(tx, family.id, firstDigest, family.createdAt);
  }

  async addToken(tx: Tx, familyId: string, digest: Buffer, issuedAt: Date): Promise<void> {
    await this.sql.rows(
      "INSERT INTO refresh_tokens (digest, family_id, issued_at) VALUES ($1, $2, $3) RETURNING digest",
      [digest, familyId, issuedAt],
      tx,
    );
  }

  /** The token and its family, with the family row locked: refreshes of one family run one at a time. */
  findTokenForUpdate(tx: Tx, digest: Buffer): Promise<RefreshTokenRecord | undefined> {
    return this.sql.one<RefreshTokenRecord>(
      `SELECT t.family_id AS "familyId", t.rotated_at AS "rotatedAt", f.user_id AS "userId", f.amr,
              f.expires_at AS "expiresAt", f.revoked_at AS "revokedAt"
       FROM refresh_tokens t JOIN refresh_families f ON f.id = t.family_id
       WHERE t.digest = $1
       FOR UPDATE OF f, t`,
      [digest],
      tx,
    );
  }

  /** Marks the token used; false when another refresh used it first. */
  async markRotated(tx: Tx, digest: Buffer, now: Date): Promise<boolean> {
    const rows = await this.sql.rows(
      "UPDATE refresh_tokens SET rotated_at = $2 WHERE digest = $1 AND rotated_at IS NULL RETURNING digest",
      [digest, now],
      tx,
    );
    return rows.length === 1;
  }

  async revokeFamily(tx: Tx | undefined, familyId: string, reason: string, now: Date): Promise<void> {
    await this.sql.rows(
      "UPDATE refresh_families SET revoked_at = $3, revoked_reason = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id",
      [familyId, reason, now],
      tx,
    );
  }

  /** Revokes the family of the token, whichever token of the family it is. */
  async revokeFamilyOfToken(digest: Buffer, reason: string, now: Date): Promise<void> {
    await this.sql.rows(
      `UPDATE refresh_families f SET revoked_at = $3, revoked_reason = $2
       FROM refresh_tokens t WHERE t.digest = $1 AND f.id = t.family_id AND f.revoked_at IS NULL RETURNING f.id`,
      [digest, reason, now],
    );
  }

  async revokeFamiliesOf(tx: Tx, userId: string, reason: string, now: Date): Promise<void> {
    await this.sql.rows(
      "UPDATE refresh_families SET revoked_at = $3, revoked_reason = $2 WHERE user_id = $1 AND revoked_at IS NULL RETURNING id",
      [userId, reason, now],
      tx,
    );
  }

  async addTrustedSource(tx: Tx | undefined, digest: Buffer, userId: string, createdAt: Date, expiresAt: Date): Promise<void> {
    await this.sql.rows(
      "INSERT INTO trusted_sources (digest, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4) RETURNING digest",
      [digest, userId, createdAt, expiresAt],
      tx,
    );
  }

  async isTrustedSource(digest: Buffer, userId: string, now: Date): Promise<boolean> {
    const rows = await this.sql.rows("SELECT 1 AS found FROM trusted_sources WHERE digest = $1 AND user_id = $2 AND expires_at > $3", [
      digest,
      userId,
      now,
    ]);
    return rows.length === 1;
  }

  async revokeTrustedSourcesOf(tx: Tx, userId: string): Promise<void> {
    await this.sql.rows("DELETE FROM trusted_sources WHERE user_id = $1 RETURNING digest", [userId], tx);
  }
}
