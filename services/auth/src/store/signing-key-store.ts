import type { StoredSigningKey } from "../domain/signing-keys.js";
import type { Sql } from "./sql.js";

/** Serializes key generation across every instance that shares the database. */
const KEY_ROTATION_LOCK = 727_101;

const COLUMNS = `kid, alg, public_jwk AS "publicJwk", private_key AS "sealedPrivateKey", created_at AS "createdAt", retired_at AS "retiredAt"`;

export class SigningKeyStore {
  constructor(private readonly sql: Sql) {}

  /** The active key and the retired ones retired after `retiredSince`, newest first. */
  list(retiredSince: Date): Promise<StoredSigningKey[]> {
    return this.sql.rows<StoredSigningKey>(
      `SELECT ${COLUMNS} FROM signing_keys WHERE retired_at IS NULL OR retired_at > $1 ORDER BY created_at DESC`,
      [retiredSince],
    );
  }

  /**
   * Retires the active key and stores `make()` in its place, unless another instance already did:
   * under the lock, a key created after `dueBefore` counts as fresh and is kept.
   */
  async rotateIfDue(dueBefore: Date, now: Date, make: () => Omit<StoredSigningKey, "createdAt" | "retiredAt">): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      await this.sql.rows("SELECT pg_advisory_xact_lock($1)", [KEY_ROTATION_LOCK], tx);
      const active = await this.sql.one<StoredSigningKey>(`SELECT ${COLUMNS} FROM signing_keys WHERE retired_at IS NULL`, [], tx);
      if (active && active.createdAt > dueBefore) return false;
      if (active) await this.sql.rows("UPDATE signing_keys SET retired_at = $2 WHERE kid = $1 RETURNING kid", [active.kid, now], tx);
      const key = make();
      await this.sql.rows(
        `INSERT INTO signing_keys (kid, alg, public_jwk, private_key, created_at) VALUES ($1, $2, $3::jsonb, $4, $5) RETURNING kid`,
        [key.kid, key.alg, JSON.stringify(key.publicJwk), key.sealedPrivateKey, now],
        tx,
      );
      return true;
    });
  }
}
