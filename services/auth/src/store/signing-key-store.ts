import type { Sql, Tx } from "@docex/kit/db";
import type { StoredSigningKey } from "../domain/signing-keys.js";

/** Serializes key generation across every instance that shares the database. */
const KEY_ROTATION_LOCK = 727_101;

const COLUMNS = `kid, alg, public_jwk AS "publicJwk", private_key AS "sealedPrivateKey", created_at AS "createdAt",
  activated_at AS "activatedAt", retired_at AS "retiredAt"`;

type NewKey = Omit<StoredSigningKey, "createdAt" | "activatedAt" | "retiredAt">;

export class SigningKeyStore {
  constructor(private readonly sql: Sql) {}

  /** The active key, the next one (published, not signing yet) and the keys retired after `retiredSince`, newest first. */
  list(retiredSince: Date): Promise<StoredSigningKey[]> {
    return this.sql.rows<StoredSigningKey>(
      `SELECT ${COLUMNS} FROM signing_keys WHERE retired_at IS NULL OR retired_at > $1 ORDER BY created_at DESC`,
      [retiredSince],
    );
  }

  /** The first key, signing at once (no token exists yet), unless another instance made one. */
  async createFirst(now: Date, make: () => NewKey): Promise<void> {
    await this.locked(async (tx) => {
      if (await this.active(tx)) return;
      await this.insert(tx, make(), now, now);
    });
  }

  /** Publishes the next key without signing with it yet, unless one is waiting already. */
  async prepareNext(now: Date, make: () => NewKey): Promise<void> {
    await this.locked(async (tx) => {
      const waiting = await this.sql.one(`SELECT kid FROM signing_keys WHERE activated_at IS NULL`, [], tx);
      if (waiting) return;
      await this.insert(tx, make(), now, null);
    });
  }

  /**
   * Retires the active key and lets the next one sign, if the next one was published before
   * `publishedBefore` and the active one was activated before `dueBefore` (another instance may have
   * promoted meanwhile).
   */
  async promoteNext(dueBefore: Date, publishedBefore: Date, now: Date): Promise<void> {
    await this.locked(async (tx) => {
      const active = await this.active(tx);
      if (active?.activatedAt && active.activatedAt > dueBefore) return;
      const next = await this.sql.one<{ kid: string }>(
        `SELECT kid FROM signing_keys WHERE activated_at IS NULL AND created_at <= $1`,
        [publishedBefore],
        tx,
      );
      if (!next) return;
      if (active) await this.sql.rows("UPDATE signing_keys SET retired_at = $2 WHERE kid = $1 RETURNING kid", [active.kid, now], tx);
      await this.sql.rows("UPDATE signing_keys SET activated_at = $2 WHERE kid = $1 RETURNING kid", [next.kid, now], tx);
    });
  }

  /** Replaces the active key at once with a new one (an operator's rotation): tokens it signs may meet verifiers that do not know it yet. */
  async replaceActive(now: Date, make: () => NewKey): Promise<void> {
    await this.locked(async (tx) => {
      const active = await this.active(tx);
      if (active) await this.sql.rows("UPDATE signing_keys SET retired_at = $2 WHERE kid = $1 RETURNING kid", [active.kid, now], tx);
      await this.insert(tx, make(), now, now);
    });
  }

  private locked(work: (tx: Tx) => Promise<void>): Promise<void> {
    return this.sql.transaction(async (tx) => {
      await this.sql.rows("SELECT pg_advisory_xact_lock($1)", [KEY_ROTATION_LOCK], tx);
      await work(tx);
    });
  }

  private active(tx: Tx): Promise<StoredSigningKey | undefined> {
    return this.sql.one<StoredSigningKey>(
      `SELECT ${COLUMNS} FROM signing_keys WHERE retired_at IS NULL AND activated_at IS NOT NULL`,
      [],
      tx,
    );
  }

  private async insert(tx: Tx, key: NewKey, now: Date, activatedAt: Date | null): Promise<void> {
    await this.sql.rows(
      `INSERT INTO signing_keys (kid, alg, public_jwk, private_key, created_at, activated_at) VALUES ($1, $2, $3::jsonb, $4, $5, $6) RETURNING kid`,
      [key.kid, key.alg, JSON.stringify(key.publicJwk), key.sealedPrivateKey, now, activatedAt],
      tx,
    );
  }
}
