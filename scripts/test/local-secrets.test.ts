import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { dropDatabase, testDatabaseServerUrl } from "@docex/testkit";
import { expect } from "chai";
import { LOCAL_SECRET_NAMES, loadLocalSecrets } from "../src/local-secrets.js";

describe("local secrets kept on the database server (real Postgres)", () => {
  const databases: string[] = [];
  const fresh = () => {
    const name = `docex_local_test_${randomBytes(3).toString("hex")}`;
    databases.push(name);
    return name;
  };
  const folder = mkdtempSync(path.join(tmpdir(), "docex-local-secrets-"));

  after(async () => {
    await Promise.all(databases.map((name) => dropDatabase(name)));
    rmSync(folder, { recursive: true, force: true });
  });

  it("makes each secret once: stacks starting at the same moment, and every later start, get the same values", async () => {
    const database = fresh();
    const first = await Promise.all(Array.from({ length: 4 }, () => loadLocalSecrets(testDatabaseServerUrl(), { database })));
    for (const secrets of first) expect(secrets).to.deep.equal(first[0]);
    expect(Object.keys(first[0]!).sort()).to.deep.equal([...LOCAL_SECRET_NAMES].sort());
    expect(Buffer.from(first[0]!.AUTH_KEY_ENCRYPTION_KEY, "base64")).to.have.length(32);
    expect(await loadLocalSecrets(testDatabaseServerUrl(), { database })).to.deep.equal(first[0]);
  });

  it("takes over the keys a checkout kept in .data/local-secrets.json, so the data they sealed still opens", async () => {
    const database = fresh();
    const legacyFile = path.join(folder, "local-secrets.json");
    const kept = {
      AUTH_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      WEBHOOK_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    };
    writeFileSync(legacyFile, JSON.stringify(kept));
    const secrets = await loadLocalSecrets(testDatabaseServerUrl(), { database, legacyFile });
    expect(secrets).to.include(kept);
    // A second clone, without the file, opens the same data.
    expect(await loadLocalSecrets(testDatabaseServerUrl(), { database })).to.deep.equal(secrets);
  });
});
