import { expect } from "chai";
import pg from "pg";
import { connectDatabase } from "../src/db/database.js";
import {
  ConcurrencyConflictError,
  DatabaseError,
  DatabaseUnavailableError,
  ForeignKeyViolationError,
  InvalidDataError,
  isUniqueViolation,
  QueryCanceledError,
  UniqueViolationError,
} from "../src/db/errors.js";
import { prepared, Sql } from "../src/db/sql.js";
import { isConcurrencyConflict, isTransientDatabaseFailure, isTransientFailure } from "../src/transient-failures.js";
import { dropDatabase, serverUrl, silentLogger, uniqueName } from "./support.js";

describe("Sql transactions (real Postgres)", function () {
  this.timeout(30_000);
  const database = uniqueName("sql");
  let sql: Sql;

  before(async () => {
    sql = await connectDatabase({ serverUrl, database, logger: silentLogger, poolMax: 1 });
    await sql.run("CREATE TABLE notes (id int PRIMARY KEY)");
  });

  after(async () => {
    await sql?.close();
    await dropDatabase(database);
  });

  const setting = async (tx?: Parameters<Sql["run"]>[2]) =>
    (await sql.one<{ synchronous_commit: string }>("SHOW synchronous_commit", [], tx))?.synchronous_commit;

  it("commits durably by default; with asyncCommit the commit does not wait for the flush, for that transaction only", async () => {
    expect(await sql.transaction((tx) => setting(tx))).to.equal("on");
    expect(await sql.transaction((tx) => setting(tx), { asyncCommit: true })).to.equal("off");
    // SET LOCAL ends with the transaction: the pooled connection (the only one) is back to durable commits.
    expect(await setting()).to.equal("on");
    expect(await sql.transaction((tx) => setting(tx))).to.equal("on");
  });

  it("an asynchronously committed transaction is still all or nothing", async () => {
    await sql.transaction((tx) => sql.run("INSERT INTO notes VALUES (1), (2)", [], tx), { asyncCommit: true });
    const failed = await sql
      .transaction(
        async (tx) => {
          await sql.run("INSERT INTO notes VALUES (3)", [], tx);
          await sql.run("INSERT INTO notes VALUES (1)", [], tx);
        },
        { asyncCommit: true },
      )
      .catch((error: unknown) => error);
    expect(failed).to.be.instanceOf(Error);
    expect((await sql.rows<{ id: number }>("SELECT id FROM notes ORDER BY id")).map(({ id }) => id)).to.deep.equal([1, 2]);
  });

  it("runs afterCommit hooks in order once the commit is done, and none when the transaction rolls back", async () => {
    await sql.run("CREATE TABLE hooked (id int PRIMARY KEY)");
    const seen: string[] = [];
    await sql.transaction(async (tx) => {
      await sql.run("INSERT INTO hooked VALUES (1)", [], tx);
      tx.afterCommit(async () => {
        // Committed, and the connection is back in the pool (its only one): a statement outside the transaction sees it.
        seen.push(`first sees ${(await sql.rows("SELECT id FROM hooked")).length}`);
      });
      tx.afterCommit(() => seen.push("second"));
      seen.push("work");
    });
    expect(seen).to.deep.equal(["work", "first sees 1", "second"]);

    const failed = await sql
      .transaction(async (tx) => {
        tx.afterCommit(() => seen.push("after a rollback"));
        await sql.run("INSERT INTO hooked VALUES (1)", [], tx);
      })
      .catch((error: unknown) => error);
    expect(failed).to.be.instanceOf(UniqueViolationError);
    expect(seen).to.have.lengthOf(3);
  });

  it("a COMMIT that fails (a deferred constraint) answers the kit's error, runs no hook and leaves the connection usable", async () => {
    await sql.run(`CREATE TABLE deferred (id int, CONSTRAINT deferred_once UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)`);
    let hooked = false;
    const failed = await sql
      .transaction(async (tx) => {
        tx.afterCommit(() => {
          hooked = true;
        });
        // Both inserts pass; the constraint is checked at the commit.
        await sql.run("INSERT INTO deferred VALUES (1), (1)", [], tx);
      })
      .catch((error: unknown) => error);
    expect(failed).to.be.instanceOf(UniqueViolationError);
    expect(isUniqueViolation(failed)).to.equal(true);
    expect(hooked).to.equal(false);
    // Nothing was written, and the pool's only connection serves the next transaction.
    expect(await sql.transaction((tx) => sql.rows("SELECT id FROM deferred", [], tx))).to.deep.equal([]);
  });

  it("settings are SET LOCAL for the transaction alone; anything but a plain name and value is refused before a connection is taken", async () => {
    const plan = (tx: Parameters<Sql["run"]>[2]) => sql.one<{ enable_bitmapscan: string }>("SHOW enable_bitmapscan", [], tx);
    expect(await sql.transaction(plan, { settings: { enable_bitmapscan: "off" } })).to.deep.equal({ enable_bitmapscan: "off" });
    expect(await plan(undefined)).to.deep.equal({ enable_bitmapscan: "on" });
    const crafted: Array<Record<string, string>> = [
      { "enable_bitmapscan; DROP TABLE notes": "off" },
      { enable_bitmapscan: "off; DROP TABLE notes" },
    ];
    for (const settings of crafted) {
      const refused = await sql.transaction(async () => "ran", { settings }).catch((error: unknown) => error);
      expect((refused as Error).message).to.include("not a transaction setting");
    }
    expect(await sql.rows("SELECT id FROM notes")).to.be.an("array");
  });

  describe("statements on the pg client, answering as sequelize.query did before", () => {
    before(async () => {
      await sql.run(`CREATE TABLE parents (id int PRIMARY KEY);
                     CREATE TABLE children (id int PRIMARY KEY, parent_id int REFERENCES parents (id), label text)`);
      await sql.run("INSERT INTO parents VALUES (1)");
    });

    it("rows of bound statements, several statements in one string without parameters, and nothing for run", async () => {
      await sql.run("INSERT INTO children (id, parent_id, label) VALUES ($1, $2, $3)", [10, 1, "ten"]);
      expect(await sql.rows("SELECT id, label FROM children WHERE parent_id = $1", [1])).to.deep.equal([{ id: 10, label: "ten" }]);
      expect(await sql.one("SELECT label FROM children WHERE id = $1", [99])).to.equal(undefined);
      expect(await sql.rows("SELECT 1 AS a; SELECT 2 AS b")).to.deep.equal([{ a: 1 }, { b: 2 }]);
      expect(await sql.run("UPDATE children SET label = $1 WHERE id = $2", ["TEN", 10])).to.equal(undefined);
    });

    it("errors are the kit's, by SQLSTATE: unique and foreign-key violations, bad data, others a DatabaseError, the pg error as cause", async () => {
      const duplicate = await sql.run("INSERT INTO children (id) VALUES ($1)", [10]).catch((error: unknown) => error);
      expect(duplicate).to.be.instanceOf(UniqueViolationError);
      expect(duplicate).to.include({ code: "23505", table: "children", constraint: "children_pkey" });
      expect(isUniqueViolation(duplicate)).to.equal(true);
      expect(((duplicate as Error).cause as { code?: string }).code).to.equal("23505");
      const orphan = await sql.run("INSERT INTO children (id, parent_id) VALUES ($1, $2)", [11, 42]).catch((error: unknown) => error);
      expect(orphan).to.be.instanceOf(ForeignKeyViolationError);
      expect(orphan).to.include({ code: "23503", table: "children", constraint: "children_parent_id_fkey" });
      expect(isUniqueViolation(orphan)).to.equal(false);
      const bad = await sql.rows("SELECT id FROM children WHERE id = $1", ["not a number"]).catch((error: unknown) => error);
      expect(bad).to.be.instanceOf(InvalidDataError);
      expect(bad).to.include({ code: "22P02" });
      expect(isTransientDatabaseFailure(bad)).to.equal(false);
      const long = await sql.rows("SELECT $1::varchar(2) AS v", ["abc"]).catch(() => "no error");
      expect(long).to.deep.equal([{ v: "ab" }]);
      const outOfRange = await sql.rows("SELECT $1::smallint AS v", [70_000]).catch((error: unknown) => error);
      expect(outOfRange).to.be.instanceOf(InvalidDataError);
      const syntax = await sql.rows("SELEC 1").catch((error: unknown) => error);
      expect(syntax).to.be.instanceOf(DatabaseError).and.not.be.instanceOf(InvalidDataError);
      expect(syntax).to.include({ code: "42601" });
      const cancelled = await sql
        .transaction((tx) => sql.run("SET LOCAL statement_timeout = 50; SELECT pg_sleep(1)", [], tx))
        .catch((error: unknown) => error);
      expect(cancelled).to.be.instanceOf(QueryCanceledError);
      expect(cancelled).to.include({ code: "57014" });
      expect(isTransientDatabaseFailure(cancelled)).to.equal(false);
      // The pool's connection (the only one) was given back after each failure.
      expect(await sql.one("SELECT 1 AS ok")).to.deep.equal({ ok: 1 });
    });

    it("a NUL in a string parameter is sent as the two characters \\0, as Sequelize sent it (Postgres refuses NUL in text)", async () => {
      await sql.run("INSERT INTO children (id, label) VALUES ($1, $2)", [12, "a\u0000b"]);
      expect(await sql.one("SELECT label FROM children WHERE id = $1", [12])).to.deep.equal({ label: "a\\0b" });
    });

    it("inside a transaction statements use its connection; once it has finished it can no longer be used", async () => {
      let finished: Parameters<Sql["run"]>[2] | undefined;
      await sql.transaction(async (tx) => {
        finished = tx;
        await sql.run("INSERT INTO children (id) VALUES ($1)", [13], tx);
        // Not visible outside the transaction before its commit: another connection would wait for the pool's only one,
        // so the transaction's own statement sees it.
        expect(await sql.one("SELECT id FROM children WHERE id = $1", [13], tx)).to.deep.equal({ id: 13 });
      });
      const late = await sql.one("SELECT 1", [], finished).catch((error: unknown) => error);
      expect(late).to.be.instanceOf(Error);
      expect((late as Error).message).to.include("can no longer be used");
    });
  });

  describe("prepared statements", () => {
    const read = prepared("SELECT id, label FROM children WHERE id = $1");
    const preparedOnThisConnection = async (name: string) =>
      (await sql.rows<{ name: string }>("SELECT name FROM pg_prepared_statements WHERE name = $1", [name])).length;

    it("answer as the same text does; each connection parses one once and keeps it under a name made from the text", async () => {
      expect(read.name).to.match(/^docex_[0-9a-f]{24}$/);
      expect(prepared(read.text).name).to.equal(read.name);
      expect(prepared(`${read.text} `).name).to.not.equal(read.name);
      await sql.run("INSERT INTO children (id, label) VALUES ($1, $2)", [20, "twenty"]);
      // The pool has one connection, so the statements below and the catalogue read share it.
      expect(await sql.one(read, [20])).to.deep.equal({ id: 20, label: "twenty" });
      expect(await preparedOnThisConnection(read.name)).to.equal(1);
      expect(await sql.one(read, [20])).to.deep.equal({ id: 20, label: "twenty" });
      expect(await sql.one(read, [21])).to.equal(undefined);
      await sql.transaction(async (tx) => expect(await sql.one(read, [20], tx)).to.deep.equal({ id: 20, label: "twenty" }));
      expect(await preparedOnThisConnection(read.name)).to.equal(1);
    });

    it("errors are the kit's as for any statement, and a NUL is sent as \\0", async () => {
      const insert = prepared("INSERT INTO children (id, label) VALUES ($1, $2)");
      await sql.run(insert, [22, "x\u0000y"]);
      expect(await sql.one(read, [22])).to.deep.equal({ id: 22, label: "x\\0y" });
      const duplicate = await sql.run(insert, [22, "again"]).catch((error: unknown) => error);
      expect(duplicate).to.be.instanceOf(UniqueViolationError);
      const bad = await sql.one(read, ["not a number"]).catch((error: unknown) => error);
      expect(bad).to.be.instanceOf(InvalidDataError);
      expect(await sql.one(read, [22])).to.deep.equal({ id: 22, label: "x\\0y" });
    });

    it("one made stale by a migration that changed its result columns fails once as a transient failure, and the connection is replaced", async () => {
      await sql.run("CREATE TABLE versions (id int PRIMARY KEY, value int); INSERT INTO versions VALUES (1, 7)");
      const value = prepared("SELECT value FROM versions WHERE id = $1");
      expect(await sql.one(value, [1])).to.deep.equal({ value: 7 });
      const before = await sql.one<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      // What a migration of the next release could do while this one runs, from another connection.
      const other = await connectDatabase({ serverUrl, database, logger: silentLogger, poolMax: 1 });
      try {
        await other.run("ALTER TABLE versions ALTER COLUMN value TYPE text");
      } finally {
        await other.close();
      }
      const stale = await sql.one(value, [1]).catch((error: unknown) => error);
      expect(stale).to.be.instanceOf(DatabaseUnavailableError);
      expect((stale as Error).message).to.include("cached plan must not change result type");
      expect(isTransientDatabaseFailure(stale)).to.equal(true);
      expect(await sql.one(value, [1])).to.deep.equal({ value: "7" });
      expect((await sql.one<{ pid: number }>("SELECT pg_backend_pid() AS pid"))?.pid).to.not.equal(before?.pid);
    });
  });

  it("a deadlock between two transactions fails one of them with an error that says so (a concurrency conflict, not a lost database)", async () => {
    const other = await connectDatabase({ serverUrl, database, logger: silentLogger, poolMax: 1 });
    try {
      const second = other;
      await sql.run("CREATE TABLE IF NOT EXISTS accounts (id int PRIMARY KEY, balance int); INSERT INTO accounts VALUES (1, 0), (2, 0)");
      let release: () => void = () => undefined;
      const bothHoldOne = new Promise<void>((resolve) => {
        let holding = 0;
        release = () => {
          holding += 1;
          if (holding === 2) resolve();
        };
      });
      // Each locks one row, waits until the other holds its own, then asks for the other's: Postgres aborts one.
      const transfer = (db: Sql, first: number, then: number) =>
        db.transaction(async (tx) => {
          await db.run("UPDATE accounts SET balance = balance + 1 WHERE id = $1", [first], tx);
          release();
          await bothHoldOne;
          await db.run("UPDATE accounts SET balance = balance + 1 WHERE id = $1", [then], tx);
        });
      const outcomes = await Promise.allSettled([transfer(sql, 1, 2), transfer(second, 2, 1)]);
      const failed = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
      expect(failed).to.have.lengthOf(1);
      const error = failed[0]!.reason;
      expect(error).to.be.instanceOf(ConcurrencyConflictError);
      expect(error).to.include({ code: "40P01" });
      expect(isConcurrencyConflict(error)).to.equal(true);
      expect(isTransientDatabaseFailure(error)).to.equal(false);
      // An event handler that met it is tried again later, not counted towards dead-lettering.
      expect(isTransientFailure(error)).to.equal(true);
      // The aborted one applied nothing: one transfer's two increments.
      const balances = await sql.rows<{ balance: number }>("SELECT balance FROM accounts ORDER BY id");
      expect(balances.map(({ balance }) => balance)).to.deep.equal([1, 1]);
    } finally {
      await other.close();
    }
  });

  it("a serialization failure is a ConcurrencyConflictError (40001): transient, nothing of it applied", async () => {
    await sql.run("CREATE TABLE IF NOT EXISTS counters (id int PRIMARY KEY, n int); INSERT INTO counters VALUES (1, 0)");
    const other = await connectDatabase({ serverUrl, database, logger: silentLogger, poolMax: 1 });
    try {
      let bothRead: () => void = () => undefined;
      const read = new Promise<void>((resolve) => {
        let count = 0;
        bothRead = () => {
          count += 1;
          if (count === 2) resolve();
        };
      });
      // Two serializable transactions each read the counter, then write what they read plus one: one must fail.
      const increment = (db: Sql) =>
        db.transaction(
          async (tx) => {
            const row = await db.one<{ n: number }>("SELECT n FROM counters WHERE id = 1", [], tx);
            bothRead();
            await read;
            await db.run("UPDATE counters SET n = $1 WHERE id = 1", [row!.n + 1], tx);
          },
          { isolation: "serializable" },
        );
      const outcomes = await Promise.allSettled([increment(sql), increment(other)]);
      const failed = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
      expect(failed).to.have.lengthOf(1);
      expect(failed[0]!.reason).to.be.instanceOf(ConcurrencyConflictError);
      expect(failed[0]!.reason).to.include({ code: "40001" });
      expect(isConcurrencyConflict(failed[0]!.reason)).to.equal(true);
      expect(isTransientFailure(failed[0]!.reason)).to.equal(true);
      expect(await sql.one("SELECT n FROM counters WHERE id = 1")).to.deep.equal({ n: 1 });
    } finally {
      await other.close();
    }
  });

  it("a transaction's isolation level goes with its BEGIN; settings may name a custom parameter (docex.x)", async () => {
    const level = await sql.transaction((tx) => sql.one<{ transaction_isolation: string }>("SHOW transaction_isolation", [], tx), {
      isolation: "repeatable read",
    });
    expect(level).to.deep.equal({ transaction_isolation: "repeatable read" });
    expect(await sql.one("SHOW transaction_isolation")).to.deep.equal({ transaction_isolation: "read committed" });
    const custom = await sql.transaction((tx) => sql.one("SELECT current_setting('docex.flag') AS flag", [], tx), {
      settings: { "docex.flag": "on" },
    });
    expect(custom).to.deep.equal({ flag: "on" });
    const refused = await sql
      .transaction(async () => "ran", { isolation: "read uncommitted; DROP TABLE notes" as never })
      .catch((e: unknown) => e);
    expect((refused as Error).message).to.include("not an isolation level");
  });

  it("connections answer as Sequelize's did: time zone UTC, a date as the text Postgres wrote, numeric and bigint as text", async () => {
    expect(await sql.one("SHOW TimeZone")).to.deep.equal({ TimeZone: "UTC" });
    const row = await sql.one(
      "SELECT '2026-12-07'::date AS day, ARRAY['2026-01-02'::date, NULL] AS days, 'infinity'::date AS never, 1.50::numeric AS amount, ARRAY[1.50, 2]::numeric[] AS amounts, 9007199254740993::bigint AS big, now() AS at",
    );
    expect(row).to.deep.include({
      day: "2026-12-07",
      days: ["2026-01-02", null],
      never: Number.POSITIVE_INFINITY,
      amount: "1.50",
      amounts: ["1.50", "2"],
      big: "9007199254740993",
    });
    expect((row as { at: unknown }).at).to.be.instanceOf(Date);
  });

  it("a database that cannot be reached fails as DatabaseUnavailableError (transient): a refused connection, and one lost mid-transaction", async () => {
    const nowhere = new Sql(new pg.Pool({ connectionString: "postgres://postgres@127.0.0.1:1/postgres" }), "nowhere");
    const refused = await nowhere.one("SELECT 1").catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(DatabaseUnavailableError);
    expect(isTransientDatabaseFailure(refused)).to.equal(true);
    await nowhere.close();
    const other = await connectDatabase({ serverUrl, database, logger: silentLogger, poolMax: 1 });
    const pid = (await other.one<{ pid: number }>("SELECT pg_backend_pid() AS pid"))!.pid;
    const lost = await other
      .transaction(async (tx) => {
        await sql.run("SELECT pg_terminate_backend($1)", [pid]);
        await other.run("SELECT 1", [], tx);
      })
      .catch((error: unknown) => error);
    expect(lost).to.be.instanceOf(DatabaseUnavailableError);
    expect(isTransientDatabaseFailure(lost)).to.equal(true);
    // The broken connection was not lent again: the pool's only one is new and answers.
    expect(await other.one("SELECT 1 AS ok")).to.deep.equal({ ok: 1 });
    await other.close();
  });
});
