import type { Sql, Tx } from "@docex/kit/db";
import type { OneTimeSecret, SecretPurpose } from "../domain/one-time-secrets.js";

const COLUMNS = `id, user_id AS "userId", purpose, digest, attempts, expires_at AS "expiresAt", organization_id AS "organizationId"`;

export class SecretStore {
  constructor(private readonly sql: Sql) {}

  async insert(
    tx: Tx,
    secret: {
      id: string;
      userId: string;
      purpose: SecretPurpose;
      digest: Buffer;
      createdAt: Date;
      expiresAt: Date;
      organizationId?: string | null;
    },
  ): Promise<void> {
    await this.sql.rows(
      `INSERT INTO one_time_secrets (id, user_id, purpose, digest, created_at, expires_at, organization_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [secret.id, secret.userId, secret.purpose, secret.digest, secret.createdAt, secret.expiresAt, secret.organizationId ?? null],
      tx,
    );
  }

  /** An unexpired token-like secret (not a PIN) by its digest. */
  findValid(digest: Buffer, purposes: SecretPurpose[], now: Date, tx?: Tx): Promise<OneTimeSecret | undefined> {
    return this.sql.one<OneTimeSecret>(
      `SELECT ${COLUMNS} FROM one_time_secrets
       WHERE digest = $1 AND purpose = ANY($2::text[]) AND purpose <> 'onboarding_pin' AND expires_at > $3`,
      [digest, purposes, now],
      tx,
    );
  }

  /**
   * Deletes the secret and every other outstanding one of its user and purpose (invitations: of its organization
   * only), and answers it; only one caller can get it, so it is single use even under concurrent requests.
   */
  async consume(tx: Tx, id: string): Promise<OneTimeSecret | undefined> {
    const consumed = await this.sql.one<OneTimeSecret>(`DELETE FROM one_time_secrets WHERE id = $1 RETURNING ${COLUMNS}`, [id], tx);
    if (consumed) await this.deleteAll(tx, consumed.userId, consumed.purpose, consumed.organizationId);
    return consumed;
  }

  /** Every outstanding secret of the user and purpose; `organizationId` given (null too), only those of it. */
  async deleteAll(tx: Tx, userId: string, purpose: SecretPurpose, organizationId?: string | null): Promise<void> {
    if (organizationId === undefined) {
      await this.sql.rows("DELETE FROM one_time_secrets WHERE user_id = $1 AND purpose = $2 RETURNING id", [userId, purpose], tx);
      return;
    }
    await this.sql.rows(
      "DELETE FROM one_time_secrets WHERE user_id = $1 AND purpose = $2 AND organization_id IS NOT DISTINCT FROM $3::uuid RETURNING id",
      [userId, purpose, organizationId],
      tx,
    );
  }

  /** The user's outstanding PIN, locked for the check that follows. */
  findPinForUpdate(tx: Tx, userId: string, now: Date): Promise<OneTimeSecret | undefined> {
    return this.sql.one<OneTimeSecret>(
      `SELECT ${COLUMNS} FROM one_time_secrets
       WHERE user_id = $1 AND purpose = 'onboarding_pin' AND expires_at > $2
       ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
      [userId, now],
      tx,
    );
  }

  async recordAttempt(tx: Tx, id: string): Promise<number> {
    const row = await this.sql.one<{ attempts: number }>(
      "UPDATE one_time_secrets SET attempts = attempts + 1 WHERE id = $1 RETURNING attempts",
      [id],
      tx,
    );
    return row?.attempts ?? 0;
  }

  async delete(tx: Tx, id: string): Promise<void> {
    await this.sql.rows("DELETE FROM one_time_secrets WHERE id = $1 RETURNING id", [id], tx);
  }
}
