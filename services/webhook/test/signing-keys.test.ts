import { databaseUrl } from "@docex/kit/db";
import { testDatabaseServerUrl } from "@docex/testkit";
import { expect } from "chai";
import pg from "pg";
import { type Person, WebhookHarness } from "./support/harness.js";

describe("organization webhook signing key (real membership in-process; document service played by a gRPC double)", () => {
  let harness: WebhookHarness;
  let owner: Person;
  let supervisor: Person;
  let admin: Person;
  let editor: Person;
  let organization: { id: string; humanized_id: string };
  let replacedKey: string;

  before(async () => {
    harness = await WebhookHarness.start();
    const team = await harness.team(["supervisor", "admin", "editor"]);
    owner = team.owner;
    [supervisor, admin, editor] = team.members as [Person, Person, Person];
    organization = team.organization;
  });

  after(async () => {
    await harness.stop();
  });

  it("GET answers 404 until a key exists; POST creates one (201) of 64 hex characters; GET returns the same key", async () => {
    const before = await harness.call("GET", `/organizations/${organization.id}/webhook-signing-key`, { as: owner });
    expect(before.status).to.equal(404);
    expect(before.body.code).to.equal("signing_key_not_found");

    const created = await harness.call("POST", `/organizations/${organization.id}/webhook-signing-key`, { as: owner });
    expect(created.status).to.equal(201);
    expect(created.headers.get("location")).to.equal(`/api/v2/organizations/${organization.id}/webhook-signing-key`);
    expect(Object.keys(created.body.data).sort()).to.deep.equal([
      "created_at",
      "key",
      "key_id",
      "previous_key_valid_until",
      "standard_webhooks_secret",
    ]);
    expect(created.body.data.key).to.match(/^[0-9a-f]{64}$/);
    expect(created.body.data.key_id).to.match(/^[0-9a-f-]{36}$/);
    // The Standard Webhooks secret is the same key bytes: whsec_ + base64 of the 64 characters.
    expect(created.body.data.standard_webhooks_secret).to.equal(`whsec_${Buffer.from(created.body.data.key, "utf8").toString("base64")}`);
    expect(created.body.data.previous_key_valid_until).to.equal(null);

    const read = await harness.call("GET", `/organizations/${organization.humanized_id}/webhook-signing-key`, { as: supervisor });
    expect(read.status).to.equal(200);
    expect(read.body.data).to.deep.equal(created.body.data);
  });

  it("POST again rotates it (200, a new key); supervisors may too", async () => {
    const first = (await harness.call("GET", `/organizations/${organization.id}/webhook-signing-key`, { as: owner })).body.data;
    const rotated = await harness.call("POST", `/organizations/${organization.id}/webhook-signing-key`, { as: supervisor });
    expect(rotated.status).to.equal(200);
    expect(rotated.body.data.key).to.match(/^[0-9a-f]{64}$/);
    expect(rotated.body.data.key).to.not.equal(first.key);
    expect(rotated.body.data.key_id).to.not.equal(first.key_id);
    replacedKey = first.key;
    // The replaced key signs beside the new one for the grace window (24 h by default).
    const graceEnds = Date.parse(rotated.body.data.previous_key_valid_until) - Date.parse(rotated.body.data.created_at);
    expect(graceEnds).to.be.closeTo(86_400_000, 5_000);
    const read = await harness.call("GET", `/organizations/${organization.id}/webhook-signing-key`, { as: owner });
    expect(read.body.data).to.deep.equal(rotated.body.data);
  });

  it("admins and editors get 403; non-members and unknown organizations 404", async () => {
    for (const person of [admin, editor]) {
      expect((await harness.call("POST", `/organizations/${organization.id}/webhook-signing-key`, { as: person })).status).to.equal(403);
      expect((await harness.call("GET", `/organizations/${organization.id}/webhook-signing-key`, { as: person })).status).to.equal(403);
    }
    const outsider = harness.person("outsider");
    expect((await harness.call("POST", `/organizations/${organization.id}/webhook-signing-key`, { as: outsider })).status).to.equal(404);
    expect((await harness.call("GET", `/organizations/${organization.id}/webhook-signing-key`, { as: outsider })).status).to.equal(404);
    expect((await harness.call("GET", "/organizations/no-such-organization/webhook-signing-key", { as: owner })).status).to.equal(404);
    expect((await harness.call("GET", `/organizations/${organization.id}/webhook-signing-key`)).status).to.equal(401);
  });

  it("is stored encrypted: the database holds neither the key nor its bytes, and another key-encryption key cannot read it", async () => {
    const key = (await harness.call("GET", `/organizations/${organization.id}/webhook-signing-key`, { as: owner })).body.data.key as string;
    const client = new pg.Client({ connectionString: databaseUrl(testDatabaseServerUrl(), harness.webhook.config.DATABASE_NAME) });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT * FROM signing_keys WHERE organization_id = $1", [organization.id]);
      const stored = JSON.stringify(rows);
      expect(stored).to.not.include(key);
      expect(stored).to.not.include(Buffer.from(key, "hex").toString("base64"));
      expect(stored).to.not.include(Buffer.from(key, "utf8").toString("base64"));
      expect(rows[0].sealed_key).to.match(/^v1\./);
      // The key replaced by the rotation above is kept for its grace window, sealed like the current one.
      expect(rows[0].previous_sealed_key).to.match(/^v1\./);
      expect(rows[0].previous_sealed_key).to.not.equal(rows[0].sealed_key);
      expect(stored).to.not.include(replacedKey);
      expect(stored).to.not.include(Buffer.from(replacedKey, "utf8").toString("base64"));
    } finally {
      await client.end();
    }
    // A replica with another WEBHOOK_KEY_ENCRYPTION_KEY on the same database cannot open it, and says so without leaking it.
    const wrongKey = await harness.startWebhook({ DATABASE_NAME: harness.webhook.config.DATABASE_NAME });
    const refused = await harness.call("GET", `/organizations/${organization.id}/webhook-signing-key`, { as: owner, instance: wrongKey });
    expect(refused.status).to.equal(500);
    expect(JSON.stringify(refused.body)).to.not.include(key);
    await harness.stopInstance(wrongKey);
  });
});
