import { databaseUrl, SERVICE_NAMES } from "@docex/kit";
import { eventually, testDatabaseServerUrl } from "@docex/testkit";
import { expect } from "chai";
import pg from "pg";
import { Stack } from "./support/stack.js";

/**
 * STACK_MIGRATE_FIRST=true starts the stack as deploy/k8s runs it: a MIGRATE_ONLY process per service migrates its
 * database and exits, then the serving processes start with MIGRATE_ON_START=false, which refuse to start while a
 * migration is pending. bench/stack starts this way, so that its idle memory is that of a serving pod. The stack is
 * left idle here, which is also where a serving process collects its start-up garbage.
 */
describe("npm start with STACK_MIGRATE_FIRST=true (migrations first, as deploy/k8s's init containers), then idle", function () {
  this.timeout(60_000);
  let stack: Stack | undefined;

  before(async function () {
    this.timeout(180_000);
    stack = await Stack.start({ env: { STACK_MIGRATE_FIRST: "true" } });
  });

  after(async function () {
    this.timeout(60_000);
    await stack?.dispose();
  });

  it("migrates every service's database before any service starts serving", async () => {
    const output = stack!.output;
    const migrated = output.indexOf("[stack] migrated first (STACK_MIGRATE_FIRST)");
    expect(migrated, output.slice(-3_000)).to.be.greaterThan(-1);
    expect(migrated).to.be.lessThan(output.indexOf("docex is ready"));
    for (const name of SERVICE_NAMES) {
      const client = new pg.Client({ connectionString: databaseUrl(testDatabaseServerUrl(), `${stack!.namespace}_${name}`) });
      await client.connect();
      try {
        const applied = await client.query("SELECT count(*)::integer AS count FROM schema_migrations");
        expect(applied.rows[0].count, name).to.be.greaterThan(0);
      } finally {
        await client.end();
      }
    }
  });

  it("serves through the gateway with MIGRATE_ON_START=false: the owner signs in and finds the organization `bootstrap`", async () => {
    const { access_token: token } = await stack!.login(stack!.owner.email, stack!.owner.password);
    const organizations = await stack!.call("GET", "/organizations", { token });
    expect(organizations.status).to.equal(200);
    expect(organizations.body.data.map((organization: { humanized_id: string }) => organization.humanized_id)).to.include("bootstrap");
  });

  it("each idle process collects its start-up garbage: its /metrics counts a major collection", async function () {
    this.timeout(90_000);
    const majorCollections = async (url: string) => {
      const text = await (await fetch(`${url}/metrics`)).text();
      return Number(/^nodejs_gc_duration_seconds_count\{[^}]*kind="major"[^}]*\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    const processes = [...SERVICE_NAMES.map((name) => ({ name, url: stack!.serviceUrl(name) })), { name: "gateway", url: stack!.gateway }];
    for (const { name, url } of processes) {
      // STARTUP_COLLECTION: the first look 10 s after the start, then every 5 s until an idle one.
      const count = await eventually(
        async () => {
          const collections = await majorCollections(url);
          return collections > 0 ? collections : undefined;
        },
        60_000,
        500,
      ).catch(() => 0);
      expect(count, `${name}: major collections`).to.be.greaterThan(0);
    }
  });
});
