import { expect } from "chai";
import type { Sequelize } from "sequelize";
import { connectDatabase } from "../src/db/database.js";
import { Sql } from "../src/db/sql.js";
import { dropDatabase, serverUrl, silentLogger, uniqueName } from "./support.js";

describe("Sql transactions (real Postgres)", function () {
  this.timeout(30_000);
  const database = uniqueName("sql");
  let sequelize: Sequelize;
  let sql: Sql;

  before(async () => {
    sequelize = await connectDatabase({ serverUrl, database, logger: silentLogger, poolMax: 1 });
    sql = new Sql(sequelize);
    await sql.run("CREATE TABLE notes (id int PRIMARY KEY)");
  });

  after(async () => {
    await sequelize?.close();
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
});
