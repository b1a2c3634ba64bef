import { expect } from "chai";
import pg from "pg";
import type { Sequelize } from "sequelize";
import { connectDatabase, GuardedPgClient } from "../src/db/database.js";
import { Sql } from "../src/db/sql.js";
import { isTransientDatabaseFailure } from "../src/transient-failures.js";
import { dropDatabase, serverUrl, silentLogger, uniqueName } from "./support.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("database connections when Postgres terminates them (real Postgres)", function () {
  this.timeout(60_000);
  const database = uniqueName("terminated");
  let sequelize: Sequelize;
  let admin: pg.Client;

  before(async () => {
    sequelize = await connectDatabase({ serverUrl: serverUrl, database, logger: silentLogger, poolMax: 10 });
    admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
  });

  after(async () => {
    await sequelize?.close();
    await admin?.end();
    await dropDatabase(database);
  });

  it("a client's error before Sequelize listens is no uncaught exception: the client is only marked invalid", () => {
    const client = new GuardedPgClient({ connectionString: serverUrl });
    expect(() => client.emit("error", Object.assign(new Error("terminating connection"), { code: "57P01" }))).not.to.throw();
    expect((client as unknown as { _invalid?: boolean })._invalid).to.equal(true);
  });

  it("keeps the process alive and serving while every backend is terminated again and again as the pool reconnects", async () => {
    // Before the guard this died within seconds with an uncaught 57P01: an error in the same read as
    // "ready for query" reached a client Sequelize had not yet put a listener on.
    let stop = false;
    let answered = 0;
    const worker = async () => {
      while (!stop) {
        try {
          await sequelize.query("SELECT 1");
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
    expect(await sequelize.query("SELECT 1 AS one", { plain: true })).to.deep.equal({ one: 1 });
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
    const transaction = await sequelize.transaction();
    const { pid } = (await sequelize.query("SELECT pg_backend_pid() AS pid", { transaction, plain: true })) as { pid: number };
    await admin.query("SELECT pg_terminate_backend($1)", [pid]);
    await sleep(100);
    // The query that meets the cut, a second one on the same (now broken) connection, and the commit.
    await attempt(() => sequelize.query("SELECT 1", { transaction }));
    await attempt(() => sequelize.query("SELECT 2", { transaction }));
    await attempt(() => transaction.commit());
    await transaction.rollback().catch(() => undefined);
    const shapes = failures.map((error) => describeFailure(error));
    expect(
      failures.every((error) => error !== undefined && isTransientDatabaseFailure(error)),
      shapes.join("; "),
    ).to.equal(true);
  });

  it("Sql's transaction, its backend terminated during its work: a transient failure, and the connection is not lent again", async () => {
    const sql = new Sql(sequelize);
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
    let current = error as { name?: string; code?: string; message?: string; parent?: unknown } | undefined;
    current;
    current = current.parent as typeof current
  ) {
    parts.push(`${current.name}(${current.code ?? ""}): ${current.message}`);
  }
  return parts.join(" <- ") || String(error);
}
