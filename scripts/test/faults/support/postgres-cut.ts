import { databaseUrl } from "@docex/kit/db";
import { testDatabaseServerUrl } from "@docex/testkit";
import pg from "pg";

/**
 * Cuts every connection the stack holds to its own databases (`pg_terminate_backend`), as a Postgres
 * restart or failover would; connections to other databases on the shared server are left alone.
 * Returns how many backends were terminated.
 */
export async function terminateBackends(databases: readonly string[]): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl(testDatabaseServerUrl(), "postgres"), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const result = await client.query<{ terminated: string }>(
      `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS terminated
         FROM pg_stat_activity
        WHERE datname = ANY($1::text[]) AND pid <> pg_backend_pid()`,
      [databases],
    );
    return Number(result.rows[0]?.terminated ?? 0);
  } finally {
    await client.end();
  }
}
