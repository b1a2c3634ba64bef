import pg from "pg";
import type { Logger } from "../logger.js";
import { Sql } from "./sql.js";

/** The URL of `database` on the server named by `serverUrl` (its own path is ignored). */
export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Creates the service's database if it is missing; safe when several instances start at once. */
export async function ensureDatabase(serverUrl: string, database: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`Refusing to create database with name ${JSON.stringify(database)}`);
  const client = new pg.Client({ connectionString: databaseUrl(serverUrl, "postgres") });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (found.rowCount) return;
    try {
      await client.query(`CREATE DATABASE "${database}"`);
    } catch (error) {
      // 42P04: created meanwhile by another instance; 23505: the same race seen in pg_database's index.
      const code = (error as { code?: string }).code;
      if (code !== "42P04" && code !== "23505") throw error;
    }
  } finally {
    await client.end();
  }
}

export interface DatabaseOptions {
  serverUrl: string;
  database: string;
  poolMax?: number;
  /** Connections the pool keeps open when idle (0 unless given): the first queries after a quiet while open none. */
  poolMin?: number;
  logger: Logger;
}

/**
 * pg's Client with an error listener from its first moment. pg.Pool listens to a client's errors only while it
 * is connected and idle in the pool: an error the server sends while a client is lent out but between queries (its
 * backend terminated: a failover, or pg_terminate_backend), or in the same read as "ready for query" while it
 * connects, would be emitted with no listener, and the uncaught 57P01 would kill the process. pg marks such a
 * client as not queryable, and the pool closes it when it comes back instead of lending it again.
 */
export class GuardedPgClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on("error", () => undefined);
  }
}

/**
 * Where Sequelize's parsers of column values differed from pg's, and so where the statements answered otherwise than
 * pg alone would: `date` and `date[]` stay the text Postgres wrote ('2026-12-07'; pg makes a local midnight Date), and
 * `numeric[]` an array of strings (pg makes floats; a single numeric is a string in both). Range types also differed;
 * no table has one.
 */
const DATE_OID = 1082;
const DATE_ARRAY_OID = 1182;
const NUMERIC_ARRAY_OID = 1231;
const TEXT_ARRAY_OID = 1009;

function dateAsWritten(value: string): string | number {
  if (value === "infinity") return Number.POSITIVE_INFINITY;
  if (value === "-infinity") return Number.NEGATIVE_INFINITY;
  return value;
}

const textArray = pg.types.getTypeParser(TEXT_ARRAY_OID as never, "text") as (value: string) => Array<string | null>;

/** pg's parsers of column values, but for those above. */
const columnTypes = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (format !== "binary") {
      if (oid === DATE_OID) return dateAsWritten;
      if (oid === DATE_ARRAY_OID) return (value: string) => textArray(value).map((each) => (each === null ? null : dateAsWritten(each)));
      if (oid === NUMERIC_ARRAY_OID) return textArray;
    }
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

interface PoolSettings {
  url: string;
  max: number;
  min?: number;
  applicationName: string;
  /** Further server settings of every connection (`-c name=value …`). */
  serverOptions?: string;
  logger: Logger;
}

/**
 * A pool of connections to the database at `url`. Each connection starts with what Sequelize's connections had, so
 * that statements answer as they did: time zone UTC (timestamps written and `::date` casts of them), and no notice
 * below a warning sent. A connection waits 10 s at most for a free one or a new one (then the statement fails as
 * the database being unavailable), and an idle one above `min` closes after 10 s.
 */
function poolOf(settings: PoolSettings): pg.Pool {
  const pool = new pg.Pool({
    connectionString: settings.url,
    Client: GuardedPgClient,
    max: settings.max,
    min: settings.min ?? 0,
    idleTimeoutMillis: 10_000,
    connectionTimeoutMillis: 10_000,
    application_name: settings.applicationName,
    options: ["-c TimeZone=UTC -c client_min_messages=warning", settings.serverOptions].filter(Boolean).join(" "),
    types: columnTypes,
  });
  // An idle connection that breaks (its backend terminated) is dropped by the pool, which tells it here; without a
  // listener the error would end the process. Nothing to act on (the next statement opens a new one, and readiness
  // reports a database that stays away), so as quiet as Sequelize's pool was.
  pool.on("error", (error) => settings.logger.debug({ err: error }, "an idle database connection failed; the pool dropped it"));
  return pool;
}

/** What `connectDatabase` made each Sql from, for the migrations' own connections. */
const connectionUrls = new WeakMap<Sql, string>();

/** The service's database (created if missing) behind a pool of `poolMax` connections, named after the database. */
export async function connectDatabase(options: DatabaseOptions): Promise<Sql> {
  await ensureDatabase(options.serverUrl, options.database);
  return openDatabase(databaseUrl(options.serverUrl, options.database), options);
}

/**
 * The database at `url` (it must exist; its name is the URL's path) behind a pool of `poolMax` connections, named
 * after the database. For a service's own database, `connectDatabase`.
 */
export async function openDatabase(url: string, options: { poolMax?: number; poolMin?: number; logger: Logger }): Promise<Sql> {
  const database = decodeURIComponent(new URL(url).pathname.slice(1));
  const pool = poolOf({ url, max: options.poolMax ?? 10, min: options.poolMin, applicationName: database, logger: options.logger });
  const sql = new Sql(pool, database);
  try {
    // As Sequelize's authenticate did: a start fails here, naming the database's trouble, rather than at the first request.
    await sql.run("SELECT 1");
  } catch (error) {
    await sql.close();
    throw error;
  }
  connectionUrls.set(sql, url);
  return sql;
}

/** What a migration gets: statements on the migrator's own connections, with the DDL lock timeout. */
export interface MigrationContext {
  sql: Sql;
}

export interface Migration {
  name: string;
  up: (context: MigrationContext) => Promise<unknown>;
  down?: (context: MigrationContext) => Promise<unknown>;
}

/** A migration that runs one SQL script (the statements of one schema change, in order). */
export function sqlMigration(name: string, script: string): Migration {
  return { name, up: ({ sql }) => sql.run(script) };
}

/** A fixed advisory-lock key: one migrator at a time per database. */
const MIGRATION_LOCK_KEY = 727_001;
/** Where the names of the applied migrations are recorded (the table umzug's Sequelize storage made, kept as it was). */
const MIGRATIONS_TABLE = "schema_migrations";

export interface MigrationTimeouts {
  /** How long to wait for another instance's migrations (the advisory lock) before failing. */
  lockWaitMs: number;
  /**
   * How long one statement of a migration may wait for a table lock before it fails (`lock_timeout`). A DDL waiting
   * behind a long transaction would otherwise queue every query of that table behind itself: failing lets traffic
   * go on, and the migration is tried again at the next start.
   */
  ddlLockWaitMs: number;
}

export const DEFAULT_MIGRATION_TIMEOUTS: MigrationTimeouts = { lockWaitMs: 300_000, ddlLockWaitMs: 10_000 };

/**
 * Where umzug records what it applied: `schema_migrations (name)`, the table and column its Sequelize storage created,
 * so a database migrated before reads the same. Applied migrations are listed by name, as that storage listed them.
 */
function migrationsTable(sql: Sql) {
  let created: Promise<void> | undefined;
  const ensured = () =>
    (created ??= sql.run(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (name varchar(255) NOT NULL UNIQUE, PRIMARY KEY (name))`));
  return {
    async executed(): Promise<string[]> {
      await ensured();
      return (await sql.rows<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY name`)).map((row) => row.name);
    },
    async logMigration({ name }: { name: string }): Promise<void> {
      await ensured();
      await sql.run(`INSERT INTO ${MIGRATIONS_TABLE} (name) VALUES ($1)`, [name]);
    },
    async unlogMigration({ name }: { name: string }): Promise<void> {
      await ensured();
      await sql.run(`DELETE FROM ${MIGRATIONS_TABLE} WHERE name = $1`, [name]);
    },
  };
}

/**
 * Runs pending migrations once, even when several instances start together: the first
 * takes a session advisory lock, the others wait for it and then find nothing pending.
 * The migrations run on connections of their own, with the DDL lock timeout; `sql`'s pool is not changed.
 * With nothing pending (every start but the first after an upgrade) it only reads which migrations were applied:
 * no lock is taken, and umzug is never loaded. umzug brings its command line along (@rushstack's libraries among
 * others), about 7 MiB of a process's memory that a serving process would otherwise hold for its whole life.
 */
export async function runMigrations(
  sql: Sql,
  migrations: Migration[],
  logger: Logger,
  timeouts: MigrationTimeouts = DEFAULT_MIGRATION_TIMEOUTS,
): Promise<string[]> {
  if ((await pendingMigrations(sql, migrations)).length === 0) return [];
  const { Umzug } = await import("umzug");
  // The lock's own connection and the migrator's pool, made like the service's (same URL, so the same TLS settings).
  const url = connectionUrls.get(sql);
  if (!url) throw new Error("runMigrations needs an Sql made by connectDatabase");
  const connection = new pg.Client({ connectionString: url });
  await connection.connect();
  const migrator = new Sql(
    poolOf({
      url,
      max: 3,
      applicationName: `${sql.database}_migrations`,
      serverOptions: `-c lock_timeout=${Math.trunc(timeouts.ddlLockWaitMs)}`,
      logger,
    }),
    sql.database,
  );
  try {
    await connection.query(`SET lock_timeout = ${Math.trunc(timeouts.lockWaitMs)}`);
    await connection.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]).catch((error: unknown) => {
      if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw error;
      throw new Error(`another instance has been migrating this database for over ${timeouts.lockWaitMs} ms; try again later`, {
        cause: error,
      });
    });
    const umzug = new Umzug({
      migrations: migrations.map((migration) => ({
        name: migration.name,
        up: () => migration.up({ sql: migrator }),
        down: () => (migration.down ?? (async () => undefined))({ sql: migrator }),
      })),
      context: { sql: migrator },
      storage: migrationsTable(migrator),
      logger: undefined,
    });
    const applied = await umzug.up();
    if (applied.length) logger.info({ migrations: applied.map((m) => m.name) }, "migrations applied");
    return applied.map((m) => m.name);
  } finally {
    await migrator.close();
    await connection.end();
  }
}

/** Postgres' SQLSTATE for a lock wait that ran past lock_timeout. */
const LOCK_NOT_AVAILABLE = "55P03";

/** The names of `migrations` not applied yet; it only reads, so it needs neither the lock nor DDL rights. */
export async function pendingMigrations(sql: Sql, migrations: Migration[]): Promise<string[]> {
  const [table] = await sql.rows<{ present: boolean }>("SELECT to_regclass($1) IS NOT NULL AS present", [MIGRATIONS_TABLE]);
  const applied = table?.present ? await sql.rows<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE}`) : [];
  const done = new Set(applied.map((row) => row.name));
  return migrations.map((migration) => migration.name).filter((name) => !done.has(name));
}
