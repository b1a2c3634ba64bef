import { SERVICE_NAMES } from "@docex/kit/config";
import pg from "pg";

/** The databases of a local stack: `docex_<service>`, or `<namespace>_<service>` in a namespace (STACK_NAMESPACE). */
export function stackDatabases(namespace: string | undefined): string[] {
  return SERVICE_NAMES.map((name) => `${namespace ?? "docex"}_${name}`);
}

/** Only a server on this machine holds a local stack's data; anything else may be someone's production. */
export function isOnThisMachine(serverUrl: string): boolean {
  return ["127.0.0.1", "localhost", "[::1]"].includes(new URL(serverUrl).hostname);
}

/**
 * What a person reads when a service of the local stack finds data sealed with a key the stack does not have:
 * the data came from another checkout, or from before the local secrets moved to the database server.
 */
export function sealedDataAdvice(service: string, keyName: string): string[] {
  return [
    `${service} cannot open what is stored on this Postgres server: it was sealed with another ${keyName}`,
    "  (made by another checkout, or by docex before local secrets were kept on the database server).",
    `  Keep the data: start with the key that sealed it, e.g. \`${keyName}=<that key> npm start\``,
    "  (a checkout that made the data before has it in its `.data/local-secrets.json`).",
    "  Or start afresh: `npm run reset` deletes this stack's databases (it asks first), then `npm start`.",
  ];
}

/** Which of `databases` exist on the server, with their sizes. */
export async function existingDatabases(serverUrl: string, databases: string[]): Promise<Array<{ name: string; size: string }>> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; size: string }>(
      "SELECT datname AS name, pg_size_pretty(pg_database_size(datname)) AS size FROM pg_database WHERE datname = ANY($1) ORDER BY datname",
      [databases],
    );
    return rows;
  } finally {
    await client.end();
  }
}

/** Which of `databases` something is connected to now: a stack still running on them. */
export async function databasesInUse(serverUrl: string, databases: string[]): Promise<string[]> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      "SELECT DISTINCT datname AS name FROM pg_stat_activity WHERE datname = ANY($1) AND pid <> pg_backend_pid() ORDER BY 1",
      [databases],
    );
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

/** Drops the databases, closing the connections still open to them. */
export async function dropDatabases(serverUrl: string, databases: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    for (const name of databases) await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
