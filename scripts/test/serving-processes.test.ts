import { SERVICE_NAMES } from "@docex/kit/config";
import { databaseUrl } from "@docex/kit/db";
import { testDatabaseServerUrl } from "@docex/testkit";
import { expect } from "chai";
import pg from "pg";
import { Stack } from "./support/stack.js";

/**
 * STACK_MIGRATE_FIRST=true starts the stack as deploy/k8s runs it: a MIGRATE_ONLY process per service migrates its
 * database and exits, then the serving processes start with MIGRATE_ON_START=false, which refuse to start while a
 * migration is pending. bench/stack starts this way, so that its idle memory is that of a serving pod.
 */
describe("npm start with STACK_MIGRATE_FIRST=true (migrations first, as deploy/k8s's init containers)", function () {
  this.timeout(60_000);
  let stack: Stack | undefined;

  before(async function () {
    this.timeout(180_000);
    // LOG_LEVEL info: the test reads each process's start-up lines.
    stack = await Stack.start({ env: { STACK_MIGRATE_FIRST: "true", LOG_LEVEL: "info" } });
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

  it("each process collects the garbage of loading its code before it listens (the log line, then its start)", () => {
    const lines = stack!.output.split("\n");
    for (const name of [...SERVICE_NAMES, "gateway"]) {
      const own = lines.filter((line) => line.startsWith(`[${name}]`));
      const collected = own.findIndex((line) => line.includes('"msg":"start-up garbage collected"'));
      expect(collected, `${name}: ${own.slice(0, 5).join("\n")}`).to.be.greaterThan(-1);
      const listening = own.findIndex((line) => /"msg":"(service started|gateway started)/.test(line));
      expect(listening, name).to.be.greaterThan(collected);
    }
  });
});
