import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { databaseUrl, ensureDatabase } from "@docex/kit";
import pg from "pg";

/**
 * The database on the Postgres server where a local stack keeps the secrets it made for itself. They seal what the
 * services store in their databases on that same server, so they live beside them: every checkout that uses the
 * server (a second clone, a deleted `.data/`, a test stack) opens the same data.
 */
export const LOCAL_METADATA_DATABASE = "docex_local";

/** Secrets the services have no defaults for, and the password of the local owner. */
export const LOCAL_SECRET_NAMES = ["AUTH_KEY_ENCRYPTION_KEY", "WEBHOOK_KEY_ENCRYPTION_KEY", "LOCAL_OWNER_PASSWORD"] as const;
export type LocalSecretName = (typeof LOCAL_SECRET_NAMES)[number];
export type LocalSecrets = Record<LocalSecretName, string>;

const MAKERS: Record<LocalSecretName, () => string> = {
  AUTH_KEY_ENCRYPTION_KEY: () => randomBytes(32).toString("base64"),
  WEBHOOK_KEY_ENCRYPTION_KEY: () => randomBytes(32).toString("base64"),
  LOCAL_OWNER_PASSWORD: () => randomBytes(12).toString("base64url"),
};

/**
 * The local secrets kept on the Postgres server at `serverUrl`, made on first use (several stacks starting at once
 * agree on one value each). A checkout that kept its secrets in `legacyFile` (`.data/local-secrets.json`, before
 * they moved to the server) hands them over once, so the data they sealed stays readable.
 */
export async function loadLocalSecrets(serverUrl: string, legacyFile?: string, retried = false): Promise<LocalSecrets> {
  await ensureDatabase(serverUrl, LOCAL_METADATA_DATABASE);
  const client = new pg.Client({ connectionString: databaseUrl(serverUrl, LOCAL_METADATA_DATABASE) });
  await client.connect();
  try {
    await client.query(
      "CREATE TABLE IF NOT EXISTS local_secret (name text PRIMARY KEY, value text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())",
    );
    const legacy = readLegacySecrets(legacyFile);
    for (const name of LOCAL_SECRET_NAMES) {
      await client.query("INSERT INTO local_secret (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", [
        name,
        legacy[name] ?? MAKERS[name](),
      ]);
    }
    const { rows } = await client.query<{ name: LocalSecretName; value: string }>("SELECT name, value FROM local_secret");
    return Object.fromEntries(rows.map((row) => [row.name, row.value])) as LocalSecrets;
  } catch (error) {
    // CREATE TABLE IF NOT EXISTS races with itself in a second stack starting at the same moment; the table is there now.
    if ((error as { code?: string }).code === "23505" && !retried) return loadLocalSecrets(serverUrl, legacyFile, true);
    throw error;
  } finally {
    await client.end();
  }
}

function readLegacySecrets(file: string | undefined): Partial<LocalSecrets> {
  if (!file || !existsSync(file)) return {};
  const saved = JSON.parse(readFileSync(file, "utf8")) as Partial<LocalSecrets>;
  return { AUTH_KEY_ENCRYPTION_KEY: saved.AUTH_KEY_ENCRYPTION_KEY, WEBHOOK_KEY_ENCRYPTION_KEY: saved.WEBHOOK_KEY_ENCRYPTION_KEY };
}
