import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";
import pg from "pg";
import { kitMigrations } from "../src/bus/outbox.js";
import { serviceConfigSchema } from "../src/config.js";
import { connectDatabase, databaseUrl, type Migration, pendingMigrations, runMigrations } from "../src/db/database.js";
import type { Sql } from "../src/db/sql.js";
import { connectInfrastructure, migrateServiceDatabase } from "../src/runtime.js";
import { dropDatabase, serverUrl, silentLogger, uniqueName } from "./support.js";

const run = promisify(execFile);

describe("database bootstrap", () => {
  const database = uniqueName("migrations");
  const instances: Sql[] = [];

  after(async () => {
    await Promise.all(instances.map((sql) => sql.close()));
    await dropDatabase(database);
  });

  it("creates the database and runs each migration once when two instances start at the same time", async () => {
    const migrations: Migration[] = [
      {
        name: "0001-runs",
        up: async ({ sql }) => {
          await sql.run("CREATE TABLE IF NOT EXISTS runs (name text NOT NULL)");
          // Slow enough that a second migrator without the lock would run it too.
          await sql.run("SELECT pg_sleep(0.3)");
          await sql.run("INSERT INTO runs VALUES ('0001')");
        },
      },
      { name: "0002-more", up: ({ sql }) => sql.run("INSERT INTO runs VALUES ('0002')") },
    ];
    const [first, second] = await Promise.all([
      connectDatabase({ serverUrl, database, logger: silentLogger }),
      connectDatabase({ serverUrl, database, logger: silentLogger }),
    ]);
    instances.push(first, second);
    const applied = await Promise.all([runMigrations(first, migrations, silentLogger), runMigrations(second, migrations, silentLogger)]);
    expect(applied.flat().sort()).to.deep.equal(["0001-runs", "0002-more"]);
    const runs = await first.rows<{ name: string }>("SELECT name FROM runs ORDER BY name");
    expect(runs.map((row) => row.name)).to.deep.equal(["0001", "0002"]);
  });
});

describe("a database that umzug's Sequelize storage migrated (before issue 41, item 3)", () => {
  const database = uniqueName("migrations_before");
  after(() => dropDatabase(database));

  it("reads its record of applied migrations as it is, and adds the next ones to it", async () => {
    const sql = await connectDatabase({ serverUrl, database, logger: silentLogger });
    try {
      // The table as that storage created it (Sequelize's DDL of its model), with what it recorded.
      await sql.run(`CREATE TABLE IF NOT EXISTS "schema_migrations" ("name" VARCHAR(255) NOT NULL UNIQUE , PRIMARY KEY ("name"));
                     CREATE TABLE runs (name text NOT NULL);
                     INSERT INTO schema_migrations (name) VALUES ('0001-runs')`);
      const migrations: Migration[] = [
        { name: "0001-runs", up: ({ sql: db }) => db.run("CREATE TABLE runs (name text NOT NULL)") },
        { name: "0002-more", up: ({ sql: db }) => db.run("INSERT INTO runs VALUES ('0002')") },
      ];
      expect(await pendingMigrations(sql, migrations)).to.deep.equal(["0002-more"]);
      expect(await runMigrations(sql, migrations, silentLogger)).to.deep.equal(["0002-more"]);
      expect(await sql.rows("SELECT name FROM schema_migrations ORDER BY name")).to.deep.equal([
        { name: "0001-runs" },
        { name: "0002-more" },
      ]);
      expect(await pendingMigrations(sql, migrations)).to.deep.equal([]);
    } finally {
      await sql.close();
    }
  });
});

describe("migration timeouts", () => {
  const database = uniqueName("migration_timeouts");
  let sql: Sql;
  let holder: pg.Client;

  before(async () => {
    sql = await connectDatabase({ serverUrl, database, logger: silentLogger });
    await sql.run("CREATE TABLE busy (id int)");
    holder = new pg.Client({ connectionString: databaseUrl(serverUrl, database) });
    await holder.connect();
  });
  after(async () => {
    await holder.end();
    await sql.close();
    await dropDatabase(database);
  });

  it("fails with a clear error, instead of waiting forever, while another instance holds the migration lock", async () => {
    await holder.query("SELECT pg_advisory_lock(727001)");
    try {
      const started = Date.now();
      // A migration is pending: with none, a start takes no lock at all.
      const pending: Migration[] = [{ name: "0001-never", up: ({ sql: db }) => db.run("SELECT 1") }];
      const failure = await runMigrations(sql, pending, silentLogger, { lockWaitMs: 300, ddlLockWaitMs: 10_000 }).catch((error) => error);
      expect(failure).to.be.instanceOf(Error);
      expect((failure as Error).message).to.match(/another instance has been migrating this database for over 300 ms/);
      expect(Date.now() - started).to.be.below(5_000);
    } finally {
      await holder.query("SELECT pg_advisory_unlock(727001)");
    }
  });

  it("a DDL waiting behind a long transaction gives up at the lock timeout; the migration runs once the table is free", async () => {
    const migrations: Migration[] = [{ name: "0001-busy-column", up: ({ sql: db }) => db.run("ALTER TABLE busy ADD COLUMN note text") }];
    await holder.query("BEGIN");
    await holder.query("SELECT * FROM busy");
    try {
      const failure = await runMigrations(sql, migrations, silentLogger, { lockWaitMs: 10_000, ddlLockWaitMs: 200 }).catch(
        (error) => error,
      );
      expect(String((failure as Error).message ?? failure)).to.match(/lock timeout/i);
      expect(await pendingMigrations(sql, migrations)).to.deep.equal(["0001-busy-column"]);
    } finally {
      await holder.query("ROLLBACK");
    }
    expect(await runMigrations(sql, migrations, silentLogger, { lockWaitMs: 10_000, ddlLockWaitMs: 200 })).to.deep.equal([
      "0001-busy-column",
    ]);
  });
});

describe("migrations at start, in a process of their own", () => {
  const fixture = fileURLToPath(new URL("./fixtures/migrating-process.mjs", import.meta.url));
  const kitDir = fileURLToPath(new URL("..", import.meta.url));
  const database = uniqueName("migrations_lazy");
  after(() => dropDatabase(database));

  async function start(): Promise<{ applied: string[]; umzugLoaded: boolean; sequelizeLoaded: boolean }> {
    const { stdout } = await run(process.execPath, [fixture], {
      cwd: kitDir,
      env: { ...process.env, SERVER_URL: serverUrl, DATABASE: database },
      timeout: 30_000,
    });
    return JSON.parse(stdout.trim().split("\n").at(-1)!);
  }

  it("loads umzug only to apply a pending migration: a start with nothing to migrate never holds it; Sequelize never", async () => {
    const first = await start();
    expect(first.applied).to.deep.equal(kitMigrations.map((migration) => migration.name));
    expect(first.umzugLoaded).to.equal(true);
    expect(first.sequelizeLoaded).to.equal(false);
    expect(await start()).to.deep.equal({ applied: [], umzugLoaded: false, sequelizeLoaded: false });
  });
});

describe("migrate-only and migrate-on-start", () => {
  const database = uniqueName("migrate_only");
  const migrations: Migration[] = [{ name: "0001-notes", up: ({ sql }) => sql.run("CREATE TABLE notes (id int PRIMARY KEY)") }];
  const configOf = (env: Record<string, string>) =>
    // No gRPC is served here; the identity is not what these tests are about.
    serviceConfigSchema("register").parse({
      DATABASE_URL: serverUrl,
      DATABASE_NAME: database,
      LOG_LEVEL: "silent",
      GRPC_INSECURE: "true",
      ...env,
    });

  after(() => dropDatabase(database));

  it("with MIGRATE_ON_START=false, start-up refuses a database with pending migrations and names MIGRATE_ONLY, without migrating", async () => {
    const config = configOf({ MIGRATE_ON_START: "false" });
    expect(config.MIGRATE_ON_START).to.equal(false);
    const failure = await connectInfrastructure("register", config, { migrations, logger: silentLogger }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).to.match(
      /0000-kit-outbox-and-processed-events, 0000-kit-outbox-publish-attempts, 0001-kit-outbox-trace-context, 0001-notes\): run the service with MIGRATE_ONLY=true first/,
    );
    const sql = await connectDatabase({ serverUrl, database, logger: silentLogger });
    try {
      expect(await pendingMigrations(sql, migrations)).to.deep.equal(["0001-notes"]);
      const notes = await sql.one<{ present: boolean }>("SELECT to_regclass('notes') IS NOT NULL AS present");
      expect(notes?.present).to.equal(false);
    } finally {
      await sql.close();
    }
  });

  it("the migrate-only step applies the kit's and the service's migrations once, after which nothing is pending", async () => {
    const config = configOf({ MIGRATE_ONLY: "true" });
    expect(config.MIGRATE_ONLY).to.equal(true);
    expect(await migrateServiceDatabase(config, { migrations, logger: silentLogger })).to.deep.equal([
      "0000-kit-outbox-and-processed-events",
      "0000-kit-outbox-publish-attempts",
      "0001-kit-outbox-trace-context",
      "0001-notes",
    ]);
    expect(await migrateServiceDatabase(config, { migrations, logger: silentLogger })).to.deep.equal([]);
    const sql = await connectDatabase({ serverUrl, database, logger: silentLogger });
    try {
      expect(await pendingMigrations(sql, [...kitMigrations, ...migrations])).to.deep.equal([]);
      expect(await sql.rows("SELECT id FROM notes")).to.deep.equal([]);
    } finally {
      await sql.close();
    }
  });

  it("by default services migrate at start and serve in the same process", () => {
    const config = configOf({});
    expect([config.MIGRATE_ON_START, config.MIGRATE_ONLY]).to.deep.equal([true, false]);
  });
});
