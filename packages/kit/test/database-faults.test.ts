import { expect } from "chai";
import pg from "pg";
import { connectDatabase, GuardedPgClient } from "../src/db/database.js";
import type { Sql } from "../src/db/sql.js";
import { isTransientDatabaseFailure } from "../src/transient-failures.js";
import { dropDatabase, serverUrl, silentLogger, uniqueName } from "./support.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("database connections when Postgres terminates them (real Postgres)", function () {
  this.timeout(60_000);
  const database = uniqueName("terminated");
  let sql: Sql;
  let admin: pg.Client;

  before(async () => {
    sql = await connectDatabase({ serverUrl: serverUrl, database, logger: silentLogger, poolMax: 10 });
    admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
  });

  after(async () => {
    await sql?.close();
    await admin?.end();
    await dropDatabase(database);
  });

  it("a client's error while the pool does not listen (connecting, or lent out between statements) is no uncaught exception", () => {
    const client = new GuardedPgClient({ connectionString: serverUrl });
    expect(() => client.emit("error", Object.assign(new Error("terminating connection"), { code: "57P01" }))).not.to.throw();
  });

  it("keeps the process alive and serving while every backend is terminated again and again as the pool reconnects", async () => {
    // Before the guard this died within seconds with an uncaught 57P01: an error in the same read as
    // "ready for query" reached a client nobody had yet put a listener on (then Sequelize's pool, now pg.Pool's).
    let stop = false;
    let answered = 0;
    const worker = async () => {
      while (!stop) {
        try {
          await sql.run("SELECT 1");
          answered++;
        } catch {
          await sleep(1);
        }
      }
    };
    const workers = Array.from({ length: 10 }, worker);
    const until = Date.now() + 5_000;
    let terminated = 0;
    while (Date.now() < until) {
      const result = await admin.query<{ n: string }>(
        "SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = $1",
        [database],
      );
      terminated += Number(result.rows[0]?.n);
      await sleep(5);
    }
    stop = true;
    await Promise.all(workers);
    expect(terminated).to.be.greaterThan(100);
    expect(answered).to.be.greaterThan(0);
    // And it recovers: a query after the storm is answered.
    expect(await sql.one("SELECT 1 AS one")).to.deep.equal({ one: 1 });
  });

  it("every error a transaction meets once its backend is terminated is a transient database failure (503, not 500)", async () => {
    const failures: unknown[] = [];
    const attempt = async (step: () => Promise<unknown>) => {
      try {
        await step();
        failures.push(undefined);
      } catch (error) {
        failures.push(error);
      }
    };
    // The query that meets the cut, a second one on the same (now broken) connection, and the commit.
    await attempt(() =>
      sql.transaction(async (tx) => {
        const row = await sql.one<{ pid: number }>("SELECT pg_backend_pid() AS pid", [], tx);
        await admin.query("SELECT pg_terminate_backend($1)", [row!.pid]);
        await sleep(100);
        await attempt(() => sql.run("SELECT 1", [], tx));
        await attempt(() => sql.run("SELECT 2", [], tx));
      }),
    );
    expect(failures).to.have.lengthOf(3);
    const shapes = failures.map((error) => describeFailure(error));
    expect(
      failures.every((error) => error !== undefined && isTransientDatabaseFailure(error)),
      shapes.join("; "),
    ).to.equal(true);
  });

  it("Sql's transaction, its backend terminated during its work: a transient failure, and the connection is not lent again", async () => {
    let hooked = false;
    const failed = await sql
      .transaction(async (tx) => {
        tx.afterCommit(() => {
          hooked = true;
        });
        const row = await sql.one<{ pid: number }>("SELECT pg_backend_pid() AS pid", [], tx);
        await admin.query("SELECT pg_terminate_backend($1)", [row!.pid]);
        await sleep(100);
        await sql.run("SELECT 1", [], tx);
      })
      .catch((error: unknown) => error);
    expect(isTransientDatabaseFailure(failed), describeFailure(failed)).to.equal(true);
    expect(hooked).to.equal(false);
    // Every connection of the pool answers the transactions that follow.
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => sql.transaction((tx) => sql.one<{ n: number }>("SELECT $1::int AS n", [n], tx))),
    );
    expect(answers.map((answer) => answer?.n)).to.deep.equal(Array.from({ length: 20 }, (_, n) => n));
  });
});

function describeFailure(error: unknown): string {
  const parts: string[] = [];
  for (
    let current = error as { name?: string; code?: string; message?: string; cause?: unknown } | undefined;
    current;
    current = current.cause as typeof current
  ) {
    parts.push(`${current.name}(${current.code ?? ""}): ${current.message}`);
  }
  return parts.join(" <- ") || String(error);
}
