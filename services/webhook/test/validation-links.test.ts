import { expect } from "chai";
import { type Hierarchy, type Person, WebhookHarness } from "./support/harness.js";

describe("external validation links (real membership in-process; document service played by a gRPC double)", () => {
  let harness: WebhookHarness;
  let owner: Person;
  let editor: Person;
  let at: Hierarchy;
  let url: string;

  before(async () => {
    harness = await WebhookHarness.start();
    const team = await harness.team(["editor"]);
    owner = team.owner;
    [editor] = team.members as [Person];
    at = harness.hierarchy(team.organization.id);
    url = `${(await harness.receiver()).url}/validate`;
    // Signing on needs the organization's key (409 signing_key_missing otherwise).
    await harness.call("POST", `/organizations/${team.organization.id}/webhook-signing-key`, { as: owner });
  });

  after(async () => {
    await harness.stop();
  });

  it("POST creates (201), POST again updates (200); one link per queue and type; GET lists them; DELETE answers 204", async () => {
    const path = `/queues/${at.queueId}/external-validation-links`;
    const created = await harness.call("POST", path, {
      as: owner,
      body: { url, type: "document_validation", signature_verification: "enabled" },
    });
    expect(created.status).to.equal(201);
    expect(created.body.data).to.deep.include({
      queue_id: at.queueId,
      type: "document_validation",
      url,
      signature_verification: "enabled",
    });
    expect(created.body.data.failure_policy).to.equal("allow");
    expect(Object.keys(created.body.data).sort()).to.deep.equal([
      "created_at",
      "failure_policy",
      "queue_id",
      "signature_verification",
      "type",
      "updated_at",
      "url",
    ]);

    const updated = await harness.call("POST", path, { as: owner, body: { url: `${url}/v2`, type: "document_validation" } });
    expect(updated.status).to.equal(200);
    // Left out, signature_verification keeps its value.
    expect(updated.body.data).to.deep.include({ url: `${url}/v2`, signature_verification: "enabled" });
    expect(updated.body.data.created_at).to.equal(created.body.data.created_at);

    const initial = await harness.call("POST", path, { as: owner, body: { url, type: "initial_document_validation" } });
    expect(initial.status).to.equal(201);
    expect(initial.body.data.signature_verification).to.equal("disabled");

    const listed = await harness.call("GET", path, { as: editor });
    expect(listed.status).to.equal(200);
    expect(listed.body.data.map((link: { type: string }) => link.type)).to.deep.equal([
      "document_validation",
      "initial_document_validation",
    ]);
    expect(listed.body.pagination).to.equal(undefined);

    expect((await harness.call("DELETE", `${path}/document_validation`, { as: owner })).status).to.equal(204);
    expect((await harness.call("DELETE", `${path}/document_validation`, { as: owner })).status).to.equal(404);
    const after = await harness.call("GET", path, { as: owner });
    expect(after.body.data.map((link: { type: string }) => link.type)).to.deep.equal(["initial_document_validation"]);
  });

  it("failure_policy: allow by default, block when asked; left out on update it stays; GET shows it", async () => {
    const place = harness.hierarchy(at.organizationId);
    const path = `/queues/${place.queueId}/external-validation-links`;
    const blocking = await harness.call("POST", path, { as: owner, body: { url, type: "document_validation", failure_policy: "block" } });
    expect(blocking.status).to.equal(201);
    expect(blocking.body.data.failure_policy).to.equal("block");
    const kept = await harness.call("POST", path, { as: owner, body: { url: `${url}/v2`, type: "document_validation" } });
    expect(kept.status).to.equal(200);
    expect(kept.body.data.failure_policy).to.equal("block");
    const defaulted = await harness.call("POST", path, {
      as: owner,
      body: { url, type: "initial_document_validation", failure_policy: null },
    });
    expect(defaulted.body.data.failure_policy).to.equal("allow");
    const listed = await harness.call("GET", path, { as: editor });
    expect(listed.body.data.map((link: { type: string; failure_policy: string }) => [link.type, link.failure_policy])).to.deep.equal([
      ["document_validation", "block"],
      ["initial_document_validation", "allow"],
    ]);
    const allowed = await harness.call("POST", path, { as: owner, body: { url, type: "document_validation", failure_policy: "allow" } });
    expect(allowed.body.data.failure_policy).to.equal("allow");
  });

  it("refuses bad input (400), unknown or foreign queues (404) and editors (403), storing nothing", async () => {
    const place = harness.hierarchy(at.organizationId);
    const path = `/queues/${place.queueId}/external-validation-links`;
    const bad = await harness.call("POST", path, {
      as: owner,
      body: { url: "nope", type: "document_status_changed", signature_verification: "on", failure_policy: "deny" },
    });
    expect(bad.status).to.equal(400);
    expect(bad.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(bad.body.errors.map((error: { path: string }) => error.path).sort()).to.deep.equal([
      "failure_policy",
      "signature_verification",
      "type",
      "url",
    ]);
    expect((await harness.call("DELETE", `${path}/queue_created`, { as: owner })).status).to.equal(400);
    expect((await harness.call("POST", path, { as: editor, body: { url, type: "document_validation" } })).status).to.equal(403);
    const stranger = await harness.team([]);
    const foreign = harness.hierarchy(stranger.organization.id);
    expect(
      (
        await harness.call("POST", `/queues/${foreign.queueId}/external-validation-links`, {
          as: owner,
          body: { url, type: "document_validation" },
        })
      ).status,
    ).to.equal(404);
    expect((await harness.call("GET", `/queues/${foreign.queueId}/external-validation-links`, { as: owner })).status).to.equal(404);
    expect((await harness.call("GET", path, { as: owner })).body.data).to.deep.equal([]);
  });
});
