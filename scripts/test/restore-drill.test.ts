// The monthly restore drill's check (deploy/k8s/infra/postgres-cnpg/drill-check.sh, run by the CronJob of
// drill-schedule.yaml), against real Postgres: two sets of databases on the local server play the live
// Cluster and the recovered drill. It passes when the drill holds the live data up to the target and nothing
// after, and fails, saying why, when a migration, a document before the target, or the stop at the target differs.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import pg from "pg";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const script = path.join(root, "deploy/k8s/infra/postgres-cnpg/drill-check.sh");
const serverUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const TARGET = "2026-12-01 04:00:00+00";

describe("the restore drill's check (drill-check.sh) against real Postgres", function () {
  this.timeout(60_000);
  const run = randomBytes(4).toString("hex");
  const live = `drill_live_${run}_`;
  const drill = `drill_copy_${run}_`;
  const databases = [`${live}document`, `${live}audit`, `${drill}document`, `${drill}audit`];
  const admin = new pg.Client({ connectionString: serverUrl });
  const url = new URL(serverUrl);

  const withDatabase = async (name: string, sql: string) => {
    const client = new pg.Client({ connectionString: Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const check = () =>
    spawnSync("bash", [script], {
      encoding: "utf8",
      env: {
        PATH: process.env.PATH,
        LIVE: `host=${url.hostname} port=${url.port || 5432}`,
        DRILL: `host=${url.hostname} port=${url.port || 5432}`,
        PGUSER_OVERRIDE: decodeURIComponent(url.username || "postgres"),
        PGPASSWORD: decodeURIComponent(url.password),
        SERVICES: "document audit",
        DATABASE_PREFIX: live,
        DRILL_DATABASE_PREFIX: drill,
        TARGET_TIME: TARGET,
      },
    });

  before(async () => {
    await admin.connect();
    for (const name of databases) await admin.query(`CREATE DATABASE ${name}`);
    for (const prefix of [live, drill]) {
      await withDatabase(
        `${prefix}audit`,
        "CREATE TABLE schema_migrations (name text); INSERT INTO schema_migrations VALUES ('0001'), ('0002')",
      );
      await withDatabase(
        `${prefix}document`,
        `CREATE TABLE schema_migrations (name text); INSERT INTO schema_migrations VALUES ('0001');
         CREATE TABLE documents (id serial, created_at timestamptz NOT NULL);
         INSERT INTO documents (created_at) VALUES ('2026-11-30 10:00+00'), ('2026-12-01 03:59+00')`,
      );
    }
    // Live goes on after the target, and deletes a document from before it: the drill has one more from before.
    await withDatabase(
      `${live}document`,
      "INSERT INTO documents (created_at) VALUES ('2026-12-01 04:05+00'); DELETE FROM documents WHERE id = 1",
    );
  });

  after(async () => {
    for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it("passes when the drill has every migration and every document up to the target, and none after", () => {
    const result = check();
    expect(result.status, result.stdout + result.stderr).to.equal(0);
    expect(result.stdout).to.include("docex_document: 2 documents up to 2026-12-01 04:00:00+00 (1 live), none after");
    expect(result.stdout).to.include("restore drill passed");
  });

  it("fails when the drill lacks a document from before the target, or has one from after it", async () => {
    await withDatabase(`${drill}document`, "DELETE FROM documents");
    let result = check();
    expect(result.status).to.equal(1);
    expect(result.stdout).to.include(
      "docex_document: 0 documents up to 2026-12-01 04:00:00+00 in the drill, 1 live; 0 after it in the drill",
    );
    await withDatabase(`${drill}document`, "INSERT INTO documents (created_at) VALUES ('2026-12-01 03:59+00'), ('2026-12-01 04:01+00')");
    result = check();
    expect(result.status).to.equal(1);
    expect(result.stdout).to.include("1 after it in the drill");
  });

  it("fails when a database's migrations differ, or a database is missing from the drill", async () => {
    await withDatabase(`${drill}audit`, "DELETE FROM schema_migrations WHERE name = '0002'");
    let result = check();
    expect(result.status).to.equal(1);
    expect(result.stdout).to.include("docex_audit: 1 migrations in the drill, 2 live");
    await admin.query(`DROP DATABASE ${drill}audit WITH (FORCE)`);
    result = check();
    expect(result.status).to.equal(1);
    expect(result.stdout).to.include("docex_audit: missing from the drill");
  });
});
