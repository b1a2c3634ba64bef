import { randomBytes, randomUUID } from "node:crypto";
import type { RunningService } from "@docex/kit/runtime";
import { dropDatabase, eventually, freePort, RecordingReceiver, TestIssuer, testServiceConfig, UserDirectoryStub } from "@docex/testkit";
import { startWebhookService, configSchema as webhookConfigSchema } from "@docex/webhook";
import { expect } from "chai";
import { Harness, type MembershipBackend, UserApi } from "./support/harness.js";
import { startRealMembership } from "./support/real-membership.js";

type Link = { type: string; url: string; webhook_id: string | null; failure_policy: string; signature_verification: string };

describe("external validation links: the queue's configuration here, receivers registered in the webhook service (both in-process, real membership)", function () {
  this.timeout(60_000);
  const directory = new UserDirectoryStub();
  let h: Harness<MembershipBackend>;
  let membership: Awaited<ReturnType<typeof startRealMembership>>;
  let webhook: RunningService;
  let webhookDatabase: string;
  let receiver: RecordingReceiver;
  let owner: UserApi;
  let editor: UserApi;
  let organizationId: string;
  let workspaceId: string;
  let url: string;

  const webhookApi = (user: UserApi) => new UserApi(`http://127.0.0.1:${webhook.httpPort}`, h.issuer, user.userId);
  const newQueue = async () =>
    (await owner.post("/queues", { workspace_id: workspaceId, name: `Linked ${randomBytes(3).toString("hex")}` })).body.data.id as string;

  before(async () => {
    const issuer = await TestIssuer.start();
    const documentGrpcPort = await freePort();
    membership = await startRealMembership(issuer, directory, `127.0.0.1:${documentGrpcPort}`);
    const webhookConfig = testServiceConfig(
      "webhook",
      {
        AUTH_JWKS_URL: issuer.jwksUri,
        MEMBERSHIP_GRPC_ADDR: membership.address,
        DOCUMENT_GRPC_ADDR: `127.0.0.1:${documentGrpcPort}`,
        WEBHOOK_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
        WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      },
      webhookConfigSchema,
    );
    webhookDatabase = webhookConfig.DATABASE_NAME;
    webhook = await startWebhookService(webhookConfig);
    h = await Harness.start({
      membership,
      issuer,
      webhookAddress: `127.0.0.1:${webhook.grpcPort}`,
      env: { GRPC_PORT: documentGrpcPort },
    });
    owner = h.as(randomUUID());
    const created = await new UserApi(membership.url, issuer, owner.userId).post("/organizations", {
      name: `Links ${randomBytes(3).toString("hex")}`,
    });
    organizationId = created.body.data.id;
    const workspace = await eventually(async () => {
      const reply = await owner.post("/workspaces", { organization_id: organizationId, name: "Payables" });
      return reply.status === 201 ? reply : undefined;
    });
    workspaceId = workspace.body.data.id;
    const email = "link-editor@example.test";
    const invited = await new UserApi(membership.url, issuer, owner.userId).post(`/organizations/${organizationId}/assign-roles`, [
      { operation: "invite", email, role: "editor" },
    ]);
    expect(invited.status).to.equal(200);
    await membership.accept(organizationId, directory.idOf(email), email);
    editor = h.as(directory.idOf(email));
    receiver = await RecordingReceiver.start();
    url = `${receiver.url}/validate`;
    // Signing on needs the organization's key (409 signing_key_missing otherwise).
    expect((await webhookApi(owner).post(`/organizations/${organizationId}/webhook-signing-key`)).status).to.equal(201);
  });

  after(async () => {
    await h?.stop();
    await webhook?.stop();
    if (webhookDatabase) await dropDatabase(webhookDatabase);
    await membership?.stop();
    await receiver?.stop();
  });

  it("POST creates (201), POST again updates (200); one link per queue and type; GET lists them; DELETE answers 204", async () => {
    const queueId = await newQueue();
    const path = `/queues/${queueId}/external-validation-links`;
    const created = await owner.post(path, { url, type: "document_validation", signature_verification: "enabled" });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.data).to.deep.include({ queue_id: queueId, type: "document_validation", url, signature_verification: "enabled" });
    expect(created.body.data.failure_policy).to.equal("allow");
    expect(Object.keys(created.body.data).sort()).to.deep.equal([
      "created_at",
      "failure_policy",
      "queue_id",
      "signature_verification",
      "type",
      "updated_at",
      "url",
      "webhook_id",
    ]);
    expect(created.body.data.webhook_id).to.equal(null);

    const updated = await owner.post(path, { url: `${url}/v2`, type: "document_validation" });
    expect(updated.status).to.equal(200);
    // Left out, signature_verification keeps its value.
    expect(updated.body.data).to.deep.include({ url: `${url}/v2`, signature_verification: "enabled" });
    expect(updated.body.data.created_at).to.equal(created.body.data.created_at);

    const initial = await owner.post(path, { url, type: "initial_document_validation" });
    expect(initial.status).to.equal(201);
    expect(initial.body.data.signature_verification).to.equal("disabled");

    const listed = await editor.get(path);
    expect(listed.status).to.equal(200);
    expect(listed.body.data.map((link: Link) => link.type)).to.deep.equal(["document_validation", "initial_document_validation"]);
    expect(listed.body.pagination).to.equal(undefined);

    expect((await owner.call("DELETE", `${path}/document_validation`)).status).to.equal(204);
    expect((await owner.call("DELETE", `${path}/document_validation`)).status).to.equal(404);
    const after = await owner.get(path);
    expect(after.body.data.map((link: Link) => link.type)).to.deep.equal(["initial_document_validation"]);
    // Each change is published as configuration.changed (resource validation_link), as the webhook service published it.
    const changes = await eventually(async () => {
      const found = h.events.ofType("configuration.changed", (event) => event.data.queue_id === queueId);
      return found.length === 4 ? found : undefined;
    });
    expect(changes.map((event) => [event.data.resource, event.data.change])).to.deep.equal([
      ["validation_link", "created"],
      ["validation_link", "updated"],
      ["validation_link", "created"],
      ["validation_link", "deleted"],
    ]);
  });

  it("failure_policy: allow by default, block when asked; left out on update it stays; GET shows it", async () => {
    const path = `/queues/${await newQueue()}/external-validation-links`;
    const blocking = await owner.post(path, { url, type: "document_validation", failure_policy: "block" });
    expect(blocking.status).to.equal(201);
    expect(blocking.body.data.failure_policy).to.equal("block");
    const kept = await owner.post(path, { url: `${url}/v2`, type: "document_validation" });
    expect(kept.status).to.equal(200);
    expect(kept.body.data.failure_policy).to.equal("block");
    const defaulted = await owner.post(path, { url, type: "initial_document_validation", failure_policy: null });
    expect(defaulted.body.data.failure_policy).to.equal("allow");
    const listed = await editor.get(path);
    expect(listed.body.data.map((link: Link) => [link.type, link.failure_policy])).to.deep.equal([
      ["document_validation", "block"],
      ["initial_document_validation", "allow"],
    ]);
    const allowed = await owner.post(path, { url, type: "document_validation", failure_policy: "allow" });
    expect(allowed.body.data.failure_policy).to.equal("allow");
  });

  // A URL the webhook service refuses (its SSRF rules: 400 url_not_allowed) is services/webhook/test/ssrf.test.ts's.
  it("signing without the organization's key is 409 signing_key_missing, as the webhook service decides; nothing is saved", async () => {
    const keyless = await new UserApi(membership.url, h.issuer, owner.userId).post("/organizations", { name: "Keyless" });
    const keylessWorkspace = await eventually(async () => {
      const reply = await owner.post("/workspaces", { organization_id: keyless.body.data.id, name: "W" });
      return reply.status === 201 ? reply : undefined;
    });
    const keylessQueue = (await owner.post("/queues", { workspace_id: keylessWorkspace.body.data.id, name: "Q" })).body.data.id;
    const unsigned = await owner.post(`/queues/${keylessQueue}/external-validation-links`, {
      url,
      type: "document_validation",
      signature_verification: "enabled",
    });
    expect(unsigned.status, JSON.stringify(unsigned.body)).to.equal(409);
    expect(unsigned.body.code).to.equal("signing_key_missing");
    expect((await owner.get(`/queues/${keylessQueue}/external-validation-links`)).body.data).to.deep.equal([]);
  });

  it("refuses bad input (400), unknown or foreign queues (404) and editors (403), storing nothing", async () => {
    const path = `/queues/${await newQueue()}/external-validation-links`;
    const bad = await owner.post(path, {
      url: "nope",
      type: "document_status_changed",
      signature_verification: "on",
      failure_policy: "deny",
    });
    expect(bad.status).to.equal(400);
    expect(bad.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(bad.body.errors.map((error: { path: string }) => error.path).sort()).to.deep.equal([
      "failure_policy",
      "signature_verification",
      "type",
      "url",
    ]);
    expect((await owner.call("DELETE", `${path}/queue_created`)).status).to.equal(400);
    expect((await editor.post(path, { url, type: "document_validation" })).status).to.equal(403);
    expect((await editor.call("DELETE", `${path}/document_validation`)).status).to.equal(403);
    const stranger = h.as(randomUUID());
    expect((await stranger.post(path, { url, type: "document_validation" })).status).to.equal(404);
    expect((await stranger.get(path)).status).to.equal(404);
    expect((await owner.get(`/queues/${randomUUID()}/external-validation-links`)).status).to.equal(404);
    expect((await owner.get(path)).body.data).to.deep.equal([]);
  });

  it("lists validation webhooks of the deprecated API as the queue's links: its own, else the nearest of its workspace and organization; masked for readers", async () => {
    const queueId = await newQueue();
    const deprecated = async (entityType: string, entityId: string, type: string, path: string) => {
      const answer = await webhookApi(owner).post("/webhooks", {
        url: `${url}/${path}?token=s3cr3t`,
        entity_type: entityType,
        entity_id: entityId,
        type,
      });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
      return answer.body.data as { id: string; url: string };
    };
    const onWorkspace = await deprecated("workspace", workspaceId, "initial_document_validation", "ws");
    const onQueue = await deprecated("queue", queueId, "document_validation", "queue");
    try {
      // At once: the webhook service told this service before answering.
      const listed = (await owner.get(`/queues/${queueId}/external-validation-links`)).body.data as Link[];
      expect(
        listed.map(({ type, url: shown, webhook_id, failure_policy }) => ({ type, url: shown, webhook_id, failure_policy })),
      ).to.deep.equal([
        { type: "document_validation", url: onQueue.url, webhook_id: onQueue.id, failure_policy: "allow" },
        { type: "initial_document_validation", url: onWorkspace.url, webhook_id: onWorkspace.id, failure_policy: "allow" },
      ]);
      // An editor reads the URL masked: no query.
      const masked = (await editor.get(`/queues/${queueId}/external-validation-links`)).body.data as Link[];
      expect(masked.map((link) => link.url).some((shown) => shown.includes("s3cr3t"))).to.equal(false);
      // The queue's own link wins over the validation webhooks.
      expect(
        (await owner.post(`/queues/${queueId}/external-validation-links`, { url, type: "initial_document_validation" })).status,
      ).to.equal(201);
      const withLink = (await owner.get(`/queues/${queueId}/external-validation-links`)).body.data as Link[];
      expect(withLink.map((link) => link.webhook_id)).to.deep.equal([onQueue.id, null]);
    } finally {
      // The workspace's webhook would speak for the other tests' queues.
      expect((await webhookApi(owner).call("DELETE", `/webhooks/${onWorkspace.id}`)).status).to.equal(204);
    }
  });

  describe("validation webhooks of the deprecated POST /webhooks and the queue's links: one validator per queue and type", () => {
    const deprecated = async (entityType: string, entityId: string, type: string, path: string) => {
      const answer = await webhookApi(owner).post("/webhooks", {
        url: `${url}/${path}`,
        entity_type: entityType,
        entity_id: entityId,
        type,
      });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
      return answer.body.data as { id: string; url: string };
    };
    const linksOf = async (queueId: string) => (await owner.get(`/queues/${queueId}/external-validation-links`)).body.data as Link[];
    const queueWebhooks = async (queueId: string, type: string) =>
      ((await webhookApi(owner).get(`/queues/${queueId}/webhooks`)).body.data as Array<{ id: string; type: string }>).filter(
        (webhook) => webhook.type === type,
      );

    it("a saved link replaces the queue's own validation webhook: an update (200), and the webhook is gone; DELETE of the link it was deletes it", async () => {
      const queueId = await newQueue();
      const sibling = await newQueue();
      const onQueue = await deprecated("queue", queueId, "document_validation", "queue");
      const onWorkspace = await deprecated("workspace", workspaceId, "initial_document_validation", "ws");
      try {
        const saved = await owner.post(`/queues/${queueId}/external-validation-links`, {
          url: `${url}/saved`,
          type: "document_validation",
        });
        expect(saved.status).to.equal(200);
        expect(saved.body.data).to.deep.include({ url: `${url}/saved`, webhook_id: null });
        expect((await webhookApi(owner).get(`/webhooks/${onQueue.id}`)).status).to.equal(404);
        expect((await linksOf(queueId)).map((link) => link.webhook_id)).to.deep.equal([null, onWorkspace.id]);

        // The workspace's webhook speaks for other queues too: it is not this queue's to delete.
        expect((await owner.call("DELETE", `/queues/${queueId}/external-validation-links/initial_document_validation`)).status).to.equal(
          404,
        );
        // The queue's own webhook is its link: deleting the link deletes it.
        const own = await deprecated("queue", sibling, "initial_document_validation", "sibling");
        expect((await owner.call("DELETE", `/queues/${sibling}/external-validation-links/initial_document_validation`)).status).to.equal(
          204,
        );
        expect((await webhookApi(owner).get(`/webhooks/${own.id}`)).status).to.equal(404);
        expect((await linksOf(sibling)).map((link) => link.webhook_id)).to.deep.equal([onWorkspace.id]);
      } finally {
        expect((await webhookApi(owner).call("DELETE", `/webhooks/${onWorkspace.id}`)).status).to.equal(204);
      }
    });

    it("a validation webhook beside the queue's link of that type is 409 validation_link_exists; the other type and delivery types are free", async () => {
      const queueId = await newQueue();
      expect((await owner.post(`/queues/${queueId}/external-validation-links`, { url, type: "document_validation" })).status).to.equal(201);
      const beside = await webhookApi(owner).post("/webhooks", {
        url: `${url}/beside`,
        entity_type: "queue",
        entity_id: queueId,
        type: "document_validation",
      });
      expect(beside.status).to.equal(409);
      expect(beside.body.code).to.equal("validation_link_exists");
      await deprecated("queue", queueId, "initial_document_validation", "other-type");
      await deprecated("queue", queueId, "document_status_changed", "status");
    });

    it("holds under concurrency: validation webhooks and link saves at once leave exactly one validator of the type", async () => {
      const queueId = await newQueue();
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          index % 2 === 0
            ? webhookApi(owner).post("/webhooks", {
                url: `${url}/mixed/${index}`,
                entity_type: "queue",
                entity_id: queueId,
                type: "document_validation",
              })
            : owner.post(`/queues/${queueId}/external-validation-links`, { url: `${url}/mixed/${index}`, type: "document_validation" }),
        ),
      );
      expect(answers.map((answer) => answer.status).every((status) => [200, 201, 409].includes(status))).to.equal(true);
      // A webhook that got in beside a link saved at the same moment is replaced once this service hears of it.
      await eventually(async () => ((await queueWebhooks(queueId, "document_validation")).length === 0 ? true : undefined), 10_000);
      expect((await linksOf(queueId)).map((link) => link.webhook_id)).to.deep.equal([null]);
    });
  });
});
