import { expect } from "chai";
import { QueryTypes, type Sequelize } from "sequelize";
import { connectDatabase, type Migration, runMigrations } from "../src/db/database.js";
import { dropDatabase, serverUrl, silentLogger, uniqueName } from "./support.js";

describe("database bootstrap", () => {
  const database = uniqueName("migrations");
  const instances: Sequelize[] = [];

  after(async () => {
    await Promise.all(instances.map((sequelize) => sequelize.close()));
    await dropDatabase(database);
  });

  it("creates the database and runs each migration once when two instances start at the same time", async () => {
    const migrations: Migration[] = [
      {
        name: "0001-runs",
        up: async ({ sequelize }) => {
          await sequelize.query("CREATE TABLE IF NOT EXISTS runs (name text NOT NULL)");
          // Slow enough that a second migrator without the lock would run it too.
          await sequelize.query("SELECT pg_sleep(0.3)");
          await sequelize.query("INSERT INTO runs VALUES ('0001')");
        },
      },
      { name: "0002-more", up: ({ sequelize }) => sequelize.query("INSERT INTO runs VALUES ('0002')") },
    ];
    const [first, second] = await Promise.all([
      connectDatabase({ serverUrl, database, logger: silentLogger }),
      connectDatabase({ serverUrl, database, logger: silentLogger }),
    ]);
    instances.push(first, second);
    const applied = await Promise.all([runMigrations(first, migrations, silentLogger), runMigrations(second, migrations, silentLogger)]);
    expect(applied.flat().sort()).to.deep.equal(["0001-runs", "0002-more"]);
    const runs = await first.query<{ name: string }>("SELECT name FROM runs ORDER BY name", { type: QueryTypes.SELECT });
    expect(runs.map((row) => row.name)).to.deep.equal(["0001", "0002"]);
  });
});
