import pg from "pg";
import { type QueryInterface, QueryTypes, Sequelize } from "sequelize";
import type { Logger } from "../logger.js";

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
 * pg's Client with an error listener from its first moment. Sequelize attaches its own only after the
 * connection is open, one microtask later; an error the server sends in the same read as "ready for
 * query" (its backend terminated while the pool reconnects: a failover, or pg_terminate_backend) was
 * emitted with no listener, and the uncaught 57P01 killed the process. The client is marked invalid the
 * way Sequelize's own listener does, so the pool discards it instead of lending it out.
 */
export class GuardedPgClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on("error", () => {
      (this as unknown as { _invalid: boolean })._invalid = true;
    });
  }
}

/** The pg module Sequelize is given: the same, but its clients are guarded. */
const guardedPg = { ...pg, Client: GuardedPgClient };

/** A Sequelize of the database at `url`: `poolMax` connections, named `applicationName`, with `serverOptions` (`-c …`). */
function sequelizeOf(url: string, poolMax: number, applicationName: string, serverOptions?: string, poolMin = 0): Sequelize {
  return new Sequelize(url, {
    dialect: "postgres",
    dialectModule: guardedPg,
    logging: false,
    pool: { max: poolMax, min: poolMin, idle: 10_000, acquire: 10_000 },
    define: { underscored: true, timestamps: false, freezeTableName: true },
    dialectOptions: { application_name: applicationName, ...(serverOptions ? { options: serverOptions } : {}) },
  });
}

export async function connectDatabase(options: DatabaseOptions): Promise<Sequelize> {
  await ensureDatabase(options.serverUrl, options.database);
  const sequelize = sequelizeOf(
    databaseUrl(options.serverUrl, options.database),
    options.poolMax ?? 10,
    options.database,
    undefined,
    options.poolMin,
  );
  await sequelize.authenticate();
  connectionUrls.set(sequelize, databaseUrl(options.serverUrl, options.database));
  return sequelize;
}

const connectionUrls = new WeakMap<Sequelize, string>();

function urlOfConfig(sequelize: Sequelize): string {
  const { host, port, username, password, database } = sequelize.config;
  const credentials = password ? `${encodeURIComponent(username)}:${encodeURIComponent(password)}` : encodeURIComponent(username);
  return `postgres://${credentials}@${host}:${port}/${database}`;
}

export interface Migration {
  name: string;
  up: (context: { queryInterface: QueryInterface; sequelize: Sequelize }) => Promise<unknown>;
  down?: (context: { queryInterface: QueryInterface; sequelize: Sequelize }) => Promise<unknown>;
}

/** A migration that runs one SQL script (the statements of one schema change, in order). */
export function sqlMigration(name: string, script: string): Migration {
  return { name, up: ({ sequelize }) => sequelize.query(script) };
}

/** A fixed advisory-lock key: one migrator at a time per database. */
const MIGRATION_LOCK_KEY = 727_001;
/** Where umzug records the names of the migrations it applied. */
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
 * Runs pending migrations once, even when several instances start together: the first
 * takes a session advisory lock, the others wait for it and then find nothing pending.
 * The migrations run on connections of their own, with the DDL lock timeout; `sequelize` is not changed.
 * With nothing pending (every start but the first after an upgrade) it only reads which migrations were applied:
 * no lock is taken, and umzug is never loaded. umzug brings its command line along (@rushstack's libraries among
 * others), about 7 MiB of a process's memory that a serving process would otherwise hold for its whole life.
 */
export async function runMigrations(
  sequelize: Sequelize,
  migrations: Migration[],
  logger: Logger,
  timeouts: MigrationTimeouts = DEFAULT_MIGRATION_TIMEOUTS,
): Promise<string[]> {
  if ((await pendingMigrations(sequelize, migrations)).length === 0) return [];
  const { SequelizeStorage, Umzug } = await import("umzug");
  // The lock's own connection, made like the pool's (same URL, so the same TLS settings).
  const url = connectionUrls.get(sequelize) ?? urlOfConfig(sequelize);
  const connection = new pg.Client({ connectionString: url });
  await connection.connect();
  const migrator = sequelizeOf(url, 3, `${sequelize.config.database}_migrations`, `-c lock_timeout=${Math.trunc(timeouts.ddlLockWaitMs)}`);
  const queryInterface = migrator.getQueryInterface();
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
        up: () => migration.up({ queryInterface, sequelize: migrator }),
        down: () => (migration.down ?? (async () => undefined))({ queryInterface, sequelize: migrator }),
      })),
      context: { queryInterface, sequelize: migrator },
      storage: new SequelizeStorage({ sequelize: migrator, tableName: MIGRATIONS_TABLE }),
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
export async function pendingMigrations(sequelize: Sequelize, migrations: Migration[]): Promise<string[]> {
  const [table] = await sequelize.query<{ present: boolean }>("SELECT to_regclass($1) IS NOT NULL AS present", {
    bind: [MIGRATIONS_TABLE],
    type: QueryTypes.SELECT,
  });
  const applied = table?.present
    ? await sequelize.query<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE}`, { type: QueryTypes.SELECT })
    : [];
  const done = new Set(applied.map((row) => row.name));
  return migrations.map((migration) => migration.name).filter((name) => !done.has(name));
}
