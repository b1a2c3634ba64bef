import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { databaseUrl, ensureDatabase } from "@docex/kit/db";
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

export interface LocalSecretsOptions {
  /** `.data/local-secrets.json` of a checkout from before the secrets moved to the server. */
  legacyFile?: string;
  /** Where on the server they are kept; LOCAL_METADATA_DATABASE but in tests. */
  database?: string;
}

/**
 * The local secrets kept on the Postgres server at `serverUrl`, made on first use (several stacks starting at once
 * agree on one value each). A checkout that kept its secrets in its legacy file hands them over once, so the data
 * they sealed stays readable.
 */
export async function loadLocalSecrets(serverUrl: string, options: LocalSecretsOptions = {}, retried = false): Promise<LocalSecrets> {
  const database = options.database ?? LOCAL_METADATA_DATABASE;
  await ensureDatabase(serverUrl, database);
  const client = new pg.Client({ connectionString: databaseUrl(serverUrl, database) });
  await client.connect();
  try {
    await client.query(
      "CREATE TABLE IF NOT EXISTS local_secret (name text PRIMARY KEY, value text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())",
    );
    const legacy = readLegacySecrets(options.legacyFile);
    for (const name of LOCAL_SECRET_NAMES) {
      await client.query("INSERT INTO local_secret (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", [
        name,
        legacy[name] ?? MAKERS[name](),
      ]);
    }
    const { rows } = await client.query<{ name: LocalSecretName; value: string }>("SELECT name, value FROM local_secret");
    return Object.fromEntries(rows.map((row) => [row.name, row.value])) as LocalSecrets;
  } catch (error) {
    // CREATE TABLE IF NOT EXISTS races with itself in a second stack starting at the same moment (the loser meets the
    // winner's row type or table: unique_violation, duplicate_object or duplicate_table); the table is there now.
    if (CREATE_RACE_CODES.has((error as { code?: string }).code ?? "") && !retried) return loadLocalSecrets(serverUrl, options, true);
    throw error;
  } finally {
    await client.end();
  }
}

/** What a concurrent CREATE TABLE IF NOT EXISTS of the same table answers the one that lost the race. */
const CREATE_RACE_CODES = new Set(["23505", "42710", "42P07"]);

function readLegacySecrets(file: string | undefined): Partial<LocalSecrets> {
  if (!file || !existsSync(file)) return {};
  const saved = JSON.parse(readFileSync(file, "utf8")) as Partial<LocalSecrets>;
  return { AUTH_KEY_ENCRYPTION_KEY: saved.AUTH_KEY_ENCRYPTION_KEY, WEBHOOK_KEY_ENCRYPTION_KEY: saved.WEBHOOK_KEY_ENCRYPTION_KEY };
}
