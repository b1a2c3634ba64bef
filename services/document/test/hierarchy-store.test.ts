import { randomUUID } from "node:crypto";
import { connectDatabase, runMigrations, type Sql } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import { dropDatabase, testDatabaseServerUrl, uniqueDatabaseName } from "@docex/testkit";
import { expect } from "chai";
import { HierarchyStore } from "../src/store/hierarchy-store.js";
import { migrations } from "../src/store/migrations.js";

describe("hierarchy store: the projection of membership's organizations (real Postgres)", function () {
  this.timeout(60_000);
  const database = uniqueDatabaseName("document_hierarchy");
  let db: Sql;
  let stores: HierarchyStore[];

  before(async () => {
    const logger = createLogger("hierarchy-store-test", "silent");
    db = await connectDatabase({ serverUrl: testDatabaseServerUrl(), database, logger });
    await runMigrations(db, migrations, logger);
    // Two stores as two replicas would be: the event consumer in one, ResolveEntity's fallback in the other.
    stores = [new HierarchyStore(db), new HierarchyStore(db)];
  });

  after(async () => {
    await db?.close();
    await dropDatabase(database);
  });

  it("records the same organization from many writers at once without an error, once", async () => {
    // The race is narrow (both writers check before either inserts): the old statement failed in about
    // one round in thirty here, so 300 rounds catch it.
    for (let round = 0; round < 300; round++) {
      const organization = { id: randomUUID(), humanizedId: `org-${round}-${randomUUID().slice(0, 8)}`, name: `Org ${round}` };
      await Promise.all(Array.from({ length: 4 }, (_, i) => (stores[i % 2] as HierarchyStore).rememberOrganization(organization)));
      const rows = await db.rows("SELECT count(*)::int AS n FROM organizations WHERE id = $1", [organization.id]);
      expect((rows as { n: number }[])[0]?.n).to.equal(1);
    }
  });

  it("follows membership's latest word on an organization's humanized id and name", async () => {
    const id = randomUUID();
    const store = stores[0] as HierarchyStore;
    await store.rememberOrganization({ id, humanizedId: `before-${id.slice(0, 8)}`, name: "Before" });
    await store.rememberOrganization({ id, humanizedId: `after-${id.slice(0, 8)}`, name: "After" });
    expect(await store.findOrganization({ id })).to.deep.equal({ id, humanizedId: `after-${id.slice(0, 8)}`, name: "After" });
  });
});
