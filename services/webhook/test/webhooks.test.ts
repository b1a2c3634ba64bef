import { expect } from "chai";
import { type Hierarchy, type Person, WebhookHarness } from "./support/harness.js";

describe("webhook endpoints (real membership in-process; document service played by a gRPC double)", () => {
  let harness: WebhookHarness;
  let owner: Person;
  let editor: Person;
  let admin: Person;
  let at: Hierarchy;
  let url: string;
  let organizationHumanizedId: string;

  before(async () => {
    harness = await WebhookHarness.start();
    const team = await harness.team(["editor", "admin"]);
    owner = team.owner;
    [editor, admin] = team.members as [Person, Person];
    at = harness.hierarchy(team.organization.id);
    organizationHumanizedId = team.organization.humanized_id;
    url = `${(await harness.receiver()).url}/hooks`;
    // Signing on needs the organization's key (409 signing_key_missing otherwise).
    await harness.call("POST", `/organizations/${team.organization.id}/webhook-signing-key`, { as: owner });
  });

  after(async () => {
    await harness.stop();
  });

  it("POST /webhooks answers 201 with Location and the WebhookResponseDto; GET reads it back", async () => {
    const created = await harness.call("POST", "/webhooks", {
      as: owner,
      body: { url, entity_type: "queue", entity_id: at.queueId, signature_verification: "enabled" },
    });
    expect(created.status).to.equal(201);
    const webhook = created.body.data;
    expect(created.headers.get("location")).to.equal(`/api/v2/webhooks/${webhook.id}`);
    expect(created.headers.get("deprecation")).to.equal(null);
    expect(webhook).to.deep.include({
      url,
      entity_type: "queue",
      entity_id: at.queueId,
      organization_id: at.organizationId,
      type: "document_status_changed",
      signature_verification: "enabled",
      destination_id: null,
      deprecated: false,
    });
    expect(Object.keys(webhook).sort()).to.deep.equal(
      [
        "id",
        "url",
        "entity_type",
        "entity_id",
        "organization_id",
        "type",
        "signature_verification",
        "destination_id",
        "deprecated",
        "status",
        "disabled_reason",
        "disabled_at",
        "created_at",
        "updated_at",
      ].sort(),
    );
    expect(webhook).to.deep.include({ status: "active", disabled_reason: null, disabled_at: null });
    const read = await harness.call("GET", `/webhooks/${webhook.id}`, { as: editor });
    expect(read.status).to.equal(200);
    expect(read.body.data).to.deep.equal(webhook);
  });

  it("defaults: type document_status_changed, signature_verification disabled (also when sent as null)", async () => {
    const webhook = await harness.createWebhook(owner, {
      url: `${url}/defaults`,
      entity_type: "workspace",
      entity_id: at.workspaceId,
      type: null,
      signature_verification: null,
    });
    expect(webhook.type).to.equal("document_status_changed");
    expect(webhook.signature_verification).to.equal("disabled");
  });

  it("validation types through POST /webhooks are created deprecated and answer Deprecation: true", async () => {
    const created = await harness.call("POST", "/webhooks", {
      as: owner,
      body: { url: `${url}/validate`, entity_type: "queue", entity_id: at.queueId, type: "document_validation" },
    });
    expect(created.status).to.equal(201);
    expect(created.headers.get("deprecation")).to.equal("true");
    expect(created.body.data.deprecated).to.equal(true);
    const read = await harness.call("GET", `/webhooks/${created.body.data.id}`, { as: owner });
    expect(read.headers.get("deprecation")).to.equal("true");
  });

  it("lists the webhooks of each entity itself (document, queue, workspace, organization), by UUID or humanized id, paginated", async () => {
    const place = harness.hierarchy(at.organizationId);
    const made: Record<string, string> = {};
    for (const [entityType, entityId] of [
      ["document", place.documentId],
      ["queue", place.queueId],
      ["workspace", place.workspaceId],
    ] as const) {
      made[entityType] = (await harness.createWebhook(owner, { url: `${url}/${entityType}`, entity_type: entityType, entity_id: entityId }))
        .id!;
    }
    const documents = await harness.call("GET", `/documents/${place.documentId}/webhooks`, { as: editor });
    expect(documents.status).to.equal(200);
    expect(documents.body.data.map((webhook: { id: string }) => webhook.id)).to.deep.equal([made.document]);
    // Without page or page_size, the whole list: one page of everything.
    expect(documents.body.pagination).to.deep.equal({ page: 1, page_size: 1, total: 1, total_pages: 1 });
    const queues = await harness.call("GET", `/queues/${place.queueId}/webhooks`, { as: editor });
    expect(queues.body.data.map((webhook: { id: string }) => webhook.id)).to.deep.equal([made.queue]);
    const workspaces = await harness.call("GET", `/workspaces/${place.workspaceId}/webhooks`, { as: editor });
    expect(workspaces.body.data.map((webhook: { id: string }) => webhook.id)).to.deep.equal([made.workspace]);

    const organizationHook = await harness.createWebhook(owner, {
      url: `${url}/org`,
      entity_type: "organization",
      entity_id: at.organizationId,
    });
    const organization = await harness.call("GET", `/organizations/${at.organizationId}/webhooks`, { as: editor });
    expect(organization.body.data.map((webhook: { id: string }) => webhook.id)).to.include(organizationHook.id);
    const byHumanizedId = await harness.call("GET", `/organizations/${organizationHumanizedId}/webhooks?page_size=1&page=1`, {
      as: editor,
    });
    expect(byHumanizedId.status).to.equal(200);
    expect(byHumanizedId.body.data).to.have.length(1);
    expect(byHumanizedId.body.pagination).to.deep.include({ page: 1, page_size: 1 });
    expect(byHumanizedId.body.pagination.total).to.be.at.least(1);
  });

  it("the four lists return every webhook of the entity (not the first 20) unless page or page_size is sent", async () => {
    const place = harness.hierarchy(at.organizationId);
    const made: string[] = [];
    for (let index = 0; index < 25; index += 1) {
      made.push((await harness.createWebhook(owner, { url: `${url}/many/${index}`, entity_type: "queue", entity_id: place.queueId })).id!);
    }
    const all = await harness.call("GET", `/queues/${place.queueId}/webhooks`, { as: editor });
    expect(all.status).to.equal(200);
    expect(all.body.data.map((webhook: { id: string }) => webhook.id)).to.deep.equal(made);
    expect(all.body.pagination).to.deep.equal({ page: 1, page_size: 25, total: 25, total_pages: 1 });
    const third = await harness.call("GET", `/queues/${place.queueId}/webhooks?page=3&page_size=10`, { as: editor });
    expect(third.body.data.map((webhook: { id: string }) => webhook.id)).to.deep.equal(made.slice(20));
    expect(third.body.pagination).to.deep.equal({ page: 3, page_size: 10, total: 25, total_pages: 3 });
    const firstPage = await harness.call("GET", `/queues/${place.queueId}/webhooks?page=1`, { as: editor });
    expect(firstPage.body.data).to.have.length(20);
    expect(firstPage.body.pagination).to.deep.equal({ page: 1, page_size: 20, total: 25, total_pages: 2 });
    const none = await harness.call("GET", `/documents/${place.documentId}/webhooks`, { as: editor });
    expect(none.body).to.deep.equal({ data: [], pagination: { page: 1, page_size: 0, total: 0, total_pages: 0 } });
  });

  it("accepts a queue's humanized id in the list path", async () => {
    const workspaceId = harness.documents.addWorkspace(at.organizationId);
    const queueId = harness.documents.addQueue(workspaceId, "acme-invoices-webhooks");
    const webhook = await harness.createWebhook(owner, { url: `${url}/humanized`, entity_type: "queue", entity_id: queueId });
    const listed = await harness.call("GET", "/queues/acme-invoices-webhooks/webhooks", { as: owner });
    expect(listed.status).to.equal(200);
    expect(listed.body.data.map((hook: { id: string }) => hook.id)).to.deep.equal([webhook.id]);
  });

  it("PATCH changes url, signature_verification and destination_id; DELETE answers 204 and the webhook is gone", async () => {
    const webhook = await harness.createWebhook(owner, { url: `${url}/patch`, entity_type: "queue", entity_id: at.queueId });
    const destination = "0b7c7f4e-3f1c-4f39-9d2c-0e1b2a3c4d5e";
    const patched = await harness.call("PATCH", `/webhooks/${webhook.id}`, {
      as: owner,
      body: { url: `${url}/patched`, signature_verification: "enabled", destination_id: destination },
    });
    expect(patched.status).to.equal(200);
    expect(patched.body.data).to.deep.include({ url: `${url}/patched`, signature_verification: "enabled", destination_id: destination });
    expect(patched.body.data.updated_at >= webhook.updated_at!).to.equal(true);
    const unchanged = await harness.call("PATCH", `/webhooks/${webhook.id}`, { as: owner, body: { destination_id: null } });
    expect(unchanged.body.data).to.deep.include({ url: `${url}/patched`, signature_verification: "enabled", destination_id: null });

    const deleted = await harness.call("DELETE", `/webhooks/${webhook.id}`, { as: owner });
    expect(deleted.status).to.equal(204);
    expect((await harness.call("GET", `/webhooks/${webhook.id}`, { as: owner })).status).to.equal(404);
    expect((await harness.call("DELETE", `/webhooks/${webhook.id}`, { as: owner })).status).to.equal(404);
  });

  it("refuses bad input with 400 listing every bad field, and stores nothing", async () => {
    const place = harness.hierarchy(at.organizationId);
    const bad = await harness.call("POST", "/webhooks", {
      as: owner,
      body: {
        url: "ftp://example.test/x",
        entity_type: "project",
        entity_id: "not-a-uuid",
        type: "sometimes",
        signature_verification: "maybe",
      },
    });
    expect(bad.status).to.equal(400);
    expect(bad.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(bad.body.errors.map((error: { path: string }) => error.path).sort()).to.deep.equal(
      ["entity_id", "entity_type", "signature_verification", "type", "url"].sort(),
    );
    for (const wrongUrl of ["not a url", "http://", "https://user:secret@example.test/hook", "javascript:alert(1)", ""]) {
      const answer = await harness.call("POST", "/webhooks", {
        as: owner,
        body: { url: wrongUrl, entity_type: "queue", entity_id: place.queueId },
      });
      expect(answer.status, wrongUrl).to.equal(400);
      expect(answer.body.errors[0].path).to.equal("url");
    }
    const missing = await harness.call("POST", "/webhooks", { as: owner, body: {} });
    expect(missing.status).to.equal(400);
    expect(missing.body.errors.map((error: { path: string }) => error.path).sort()).to.deep.equal(["entity_id", "entity_type", "url"]);
    const unknownField = await harness.call("POST", "/webhooks", {
      as: owner,
      body: { url, entity_type: "queue", entity_id: place.queueId, colour: "blue" },
    });
    expect(unknownField.status).to.equal(400);
    const malformed = await harness.call("POST", "/webhooks", { as: owner, rawBody: "{not json" });
    expect(malformed.status).to.equal(400);
    expect(malformed.body.code).to.equal("malformed_json");

    const listed = await harness.call("GET", `/queues/${place.queueId}/webhooks`, { as: owner });
    expect(listed.body.data).to.deep.equal([]);
  });

  it("an unknown entity, or one of another organization, is 404 and nothing is stored", async () => {
    const stranger = await harness.team([]);
    const foreign = harness.hierarchy(stranger.organization.id);
    const unknown = await harness.call("POST", "/webhooks", {
      as: owner,
      body: { url, entity_type: "queue", entity_id: "6f1d2c3b-4a59-4e7d-8c6b-5a4f3e2d1c0b" },
    });
    expect(unknown.status).to.equal(404);
    expect(unknown.body.code).to.equal("queue_not_found");
    for (const [entityType, entityId] of [
      ["organization", foreign.organizationId],
      ["workspace", foreign.workspaceId],
      ["queue", foreign.queueId],
      ["document", foreign.documentId],
    ] as const) {
      const answer = await harness.call("POST", "/webhooks", { as: owner, body: { url, entity_type: entityType, entity_id: entityId } });
      expect(answer.status, entityType).to.equal(404);
    }
    // The wrong entity type for an id names nothing either.
    const wrongType = await harness.call("POST", "/webhooks", {
      as: owner,
      body: { url, entity_type: "workspace", entity_id: at.queueId },
    });
    expect(wrongType.status).to.equal(404);
    const theirs = await harness.call("GET", `/queues/${foreign.queueId}/webhooks`, { as: stranger.owner });
    expect(theirs.body.data).to.deep.equal([]);
  });

  it("roles: an editor reads but may not create, change or delete (403); a non-member gets 404 everywhere", async () => {
    const webhook = await harness.createWebhook(owner, { url: `${url}/roles`, entity_type: "queue", entity_id: at.queueId });
    const refused = await harness.call("POST", "/webhooks", { as: editor, body: { url, entity_type: "queue", entity_id: at.queueId } });
    expect(refused.status).to.equal(403);
    expect((await harness.call("PATCH", `/webhooks/${webhook.id}`, { as: editor, body: { url: `${url}/x` } })).status).to.equal(403);
    expect((await harness.call("DELETE", `/webhooks/${webhook.id}`, { as: editor })).status).to.equal(403);
    expect((await harness.call("GET", `/webhooks/${webhook.id}/deliveries`, { as: editor })).status).to.equal(403);

    const adminMade = await harness.call("POST", "/webhooks", {
      as: admin,
      body: { url: `${url}/admin`, entity_type: "queue", entity_id: at.queueId },
    });
    expect(adminMade.status).to.equal(201);

    const outsider = harness.person("outsider");
    expect((await harness.call("GET", `/webhooks/${webhook.id}`, { as: outsider })).status).to.equal(404);
    expect((await harness.call("PATCH", `/webhooks/${webhook.id}`, { as: outsider, body: { url } })).status).to.equal(404);
    expect((await harness.call("DELETE", `/webhooks/${webhook.id}`, { as: outsider })).status).to.equal(404);
    expect((await harness.call("GET", `/queues/${at.queueId}/webhooks`, { as: outsider })).status).to.equal(404);
    expect(
      (await harness.call("POST", "/webhooks", { as: outsider, body: { url, entity_type: "queue", entity_id: at.queueId } })).status,
    ).to.equal(404);
  });

  it("a queue-limited admin manages webhooks of their queues only: other queues are 404, the organization 403", async () => {
    const { organization, owner: boss } = await harness.team([]);
    const mine = harness.hierarchy(organization.id);
    const notMine = harness.hierarchy(organization.id);
    const [limited] = await harness.invite(boss, organization.id, [{ role: "admin", queueIds: [mine.queueId] }]);
    const allowed = await harness.call("POST", "/webhooks", {
      as: limited,
      body: { url: `${url}/q`, entity_type: "queue", entity_id: mine.queueId },
    });
    expect(allowed.status).to.equal(201);
    const onDocument = await harness.call("POST", "/webhooks", {
      as: limited,
      body: { url: `${url}/d`, entity_type: "document", entity_id: mine.documentId },
    });
    expect(onDocument.status).to.equal(201);
    const hidden = await harness.call("POST", "/webhooks", {
      as: limited,
      body: { url: `${url}/q`, entity_type: "queue", entity_id: notMine.queueId },
    });
    expect(hidden.status).to.equal(404);
    const organizationWide = await harness.call("POST", "/webhooks", {
      as: limited,
      body: { url: `${url}/o`, entity_type: "organization", entity_id: organization.id },
    });
    expect(organizationWide.status).to.equal(403);
  });

  it("an approver sees the webhooks of documents assigned to them only", async () => {
    const { organization, owner: boss } = await harness.team([]);
    const [approver] = await harness.invite(boss, organization.id, [{ role: "approver" }]);
    const assigned = harness.hierarchy(organization.id, [approver!.id]);
    const other = harness.hierarchy(organization.id);
    const onAssigned = await harness.createWebhook(boss, { url: `${url}/a`, entity_type: "document", entity_id: assigned.documentId });
    const onOther = await harness.createWebhook(boss, { url: `${url}/b`, entity_type: "document", entity_id: other.documentId });
    expect((await harness.call("GET", `/webhooks/${onAssigned.id}`, { as: approver })).status).to.equal(200);
    expect((await harness.call("GET", `/webhooks/${onOther.id}`, { as: approver })).status).to.equal(404);
    expect((await harness.call("GET", `/documents/${other.documentId}/webhooks`, { as: approver })).status).to.equal(404);
  });

  it("the same url twice on one entity and type is 409; without a token 401; unknown ids 404; wrong methods 405", async () => {
    const body = { url: `${url}/twice`, entity_type: "queue", entity_id: at.queueId };
    await harness.createWebhook(owner, body);
    const again = await harness.call("POST", "/webhooks", { as: owner, body });
    expect(again.status).to.equal(409);
    expect(again.body.code).to.equal("webhook_exists");
    expect((await harness.call("POST", "/webhooks", { body })).status).to.equal(401);
    expect((await harness.call("GET", "/webhooks/not-a-uuid", { as: owner })).status).to.equal(404);
    expect((await harness.call("GET", "/webhooks/3e6f1a2b-9c8d-4e7f-a6b5-c4d3e2f1a0b9", { as: owner })).status).to.equal(404);
    const put = await harness.call("PUT", "/webhooks", { as: owner, body });
    expect(put.status).to.equal(405);
    expect(put.headers.get("allow")).to.equal("POST");
  });
});
