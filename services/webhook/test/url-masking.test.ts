import { expect } from "chai";
import { isTokenLike, maskUrl } from "../src/domain/url-masking.js";
import { type Hierarchy, type Person, WebhookHarness } from "./support/harness.js";

describe("webhook and link URLs are masked for readers below supervisor (real membership in-process; document service played by a gRPC double)", () => {
  let harness: WebhookHarness;
  let owner: Person;
  let supervisor: Person;
  let admin: Person;
  let editor: Person;
  let viewer: Person;
  let at: Hierarchy;
  let origin: string;

  before(async () => {
    harness = await WebhookHarness.start();
    const team = await harness.team(["supervisor", "admin", "editor", "viewer"]);
    owner = team.owner;
    [supervisor, admin, editor, viewer] = team.members as [Person, Person, Person, Person];
    at = harness.hierarchy(team.organization.id);
    origin = (await harness.receiver()).url;
  });

  after(async () => {
    await harness.stop();
  });

  it("masks token-like path segments, drops the query and fragment, and keeps scheme, host, port and plain words", () => {
    expect(maskUrl("https://hooks.example.com/services/T0123ABCD/B0123ABCD/xoxb4f3a9c2e1d?token=abc#frag")).to.equal(
      "https://hooks.example.com/services/***/***/***",
    );
    expect(maskUrl("https://discord.example/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz")).to.equal(
      "https://discord.example/api/webhooks/***/***",
    );
    expect(maskUrl("http://erp.example.com:8443/docex/webhook-receiver?key=s3cret")).to.equal(
      "http://erp.example.com:8443/docex/webhook-receiver",
    );
    expect(maskUrl("https://erp.example.com/hooks/2f9c1e0a-6b7d-4c3e-9a8b-1d2e3f4a5b6c/v2")).to.equal(
      "https://erp.example.com/hooks/***/v2",
    );
    expect(isTokenLike("validate")).to.equal(false);
    expect(isTokenLike("v2")).to.equal(false);
    expect(isTokenLike("abcdefghijklmnopqrstuvwxyz")).to.equal(true);
  });

  it("owners, supervisors and admins read a webhook's URL whole; editors and viewers masked, in GET and in the four lists", async () => {
    const secret = `${origin}/services/T0123ABCD/B0123ABCD/xoxb4f3a9c2e1d?token=s3cret-token`;
    const masked = `${origin}/services/***/***/***`;
    const onQueue = await harness.createWebhook(owner, { url: secret, entity_type: "queue", entity_id: at.queueId });
    const onOrganization = await harness.createWebhook(owner, { url: secret, entity_type: "organization", entity_id: at.organizationId });
    for (const [person, expected] of [
      [owner, secret],
      [supervisor, secret],
      [admin, secret],
      [editor, masked],
      [viewer, masked],
    ] as const) {
      const read = await harness.call("GET", `/webhooks/${onQueue.id}`, { as: person });
      expect(read.status).to.equal(200);
      expect(read.body.data.url, person.email).to.equal(expected);
      const queueList = await harness.call("GET", `/queues/${at.queueId}/webhooks`, { as: person });
      expect(queueList.body.data.map((webhook: { url: string }) => webhook.url)).to.deep.equal([expected]);
      const organizationList = await harness.call("GET", `/organizations/${at.organizationId}/webhooks`, { as: person });
      const listed = organizationList.body.data.find((webhook: { id: string }) => webhook.id === onOrganization.id);
      expect(listed.url, person.email).to.equal(expected);
      expect(JSON.stringify([read.body, queueList.body, organizationList.body]).includes("s3cret-token")).to.equal(expected === secret);
    }
  });

  it("a queue-limited admin sees the URLs of their queue whole, and an organization webhook's masked (they do not manage it)", async () => {
    const [limited] = await harness.invite(owner, at.organizationId, [{ role: "admin", queueIds: [at.queueId] }]);
    const secret = `${origin}/org/4f3a9c2e1dxoxb?token=s3cret`;
    const organizationWide = await harness.createWebhook(owner, { url: secret, entity_type: "organization", entity_id: at.organizationId });
    const read = await harness.call("GET", `/webhooks/${organizationWide.id}`, { as: limited });
    expect(read.status).to.equal(200);
    expect(read.body.data.url).to.equal(`${origin}/org/***`);
    const queueHook = await harness.createWebhook(limited!, { url: `${secret}&q=1`, entity_type: "queue", entity_id: at.queueId });
    expect((await harness.call("GET", `/webhooks/${queueHook.id}`, { as: limited })).body.data.url).to.equal(`${secret}&q=1`);
  });
});
