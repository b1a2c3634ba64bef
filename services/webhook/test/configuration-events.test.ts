import type { DocexEvent } from "@docex/events";
import { eventually } from "@docex/testkit";
import { expect } from "chai";
import { type Person, WebhookHarness } from "./support/harness.js";

type ConfigurationChanged = DocexEvent<"configuration.changed">;

const DESTINATION = "0b7c7f4e-3f1c-4f39-9d2c-0e1b2a3c4d5e";

describe("configuration.changed for the audit log, through the outbox (real Postgres, NATS, membership and receivers; document service played by a gRPC double)", function () {
  this.timeout(60_000);
  let harness: WebhookHarness;
  let owner: Person;
  let organizationId: string;
  let received: () => ConfigurationChanged[];

  before(async () => {
    harness = await WebhookHarness.start({ WEBHOOK_DISABLE_AFTER_FAILING_MS: 1_000, WEBHOOK_FAILING_SWEEP_INTERVAL_MS: 200 });
    const team = await harness.team([]);
    owner = team.owner;
    organizationId = team.organization.id;
    received = await harness.configurationEvents();
  });

  after(async () => {
    await harness?.stop();
  });

  /** The events about one resource, once `count` of them have arrived. */
  const eventsOf = (resourceId: string, count: number) =>
    eventually(async () => {
      const mine = received().filter((event) => event.data.resource_id === resourceId);
      return mine.length >= count ? mine : undefined;
    }, 10_000);

  it("webhooks: created, updated and deleted, with the caller, the request id, and the URL's query values redacted", async () => {
    const at = harness.hierarchy(organizationId);
    const receiver = await harness.receiver();
    const created = await harness.call("POST", "/webhooks", {
      as: owner,
      body: { url: `${receiver.url}/hook?token=s3cret-token`, entity_type: "queue", entity_id: at.queueId },
    });
    expect(created.status).to.equal(201);
    const id = created.body.data.id as string;
    expect((await harness.call("PATCH", `/webhooks/${id}`, { as: owner, body: { destination_id: DESTINATION } })).status).to.equal(200);
    expect((await harness.call("DELETE", `/webhooks/${id}`, { as: owner })).status).to.equal(204);

    const [create, update, remove] = await eventsOf(id, 3);
    expect(create).to.deep.include({
      organization_id: organizationId,
      actor_user_id: owner.id,
      request_id: created.headers.get("x-request-id"),
    });
    expect(create!.data).to.deep.include({ resource: "webhook", resource_id: id, queue_id: at.queueId, change: "created", previous: null });
    expect(create!.data.current).to.deep.include({
      url: `${receiver.url}/hook?token=redacted`,
      type: "document_status_changed",
      signature_verification: "disabled",
      status: "active",
    });
    expect(update!.data.change).to.equal("updated");
    expect(update!.data.previous).to.deep.include({ destination_id: null });
    expect(update!.data.current).to.deep.include({ destination_id: DESTINATION });
    expect(remove!.data).to.deep.include({ change: "deleted", current: null });
    expect(JSON.stringify([create, update, remove])).to.not.include("s3cret-token");
  });

  it("a change that is refused publishes nothing: the event commits with the change or not at all", async () => {
    const at = harness.hierarchy(organizationId);
    const url = `${(await harness.receiver()).url}/once`;
    const first = await harness.createWebhook(owner, { url, entity_type: "queue", entity_id: at.queueId });
    const duplicate = await harness.call("POST", "/webhooks", { as: owner, body: { url, entity_type: "queue", entity_id: at.queueId } });
    expect(duplicate.status).to.equal(409);
    await eventsOf(first.id!, 1);
    // Something published after the refusal arrives, and the refusal left no event before it.
    const later = await harness.createWebhook(owner, { url: `${url}/later`, entity_type: "queue", entity_id: at.queueId });
    await eventsOf(later.id!, 1);
    const aboutQueue = received().filter((event) => event.data.queue_id === at.queueId && event.data.resource === "webhook");
    expect(aboutQueue.map((event) => event.data.resource_id)).to.deep.equal([first.id, later.id]);
  });

  it("signing keys: created and rotated, named by key id only, never by their material", async () => {
    const created = (await harness.call("POST", `/organizations/${organizationId}/webhook-signing-key`, { as: owner })).body.data;
    const rotated = (await harness.call("POST", `/organizations/${organizationId}/webhook-signing-key`, { as: owner })).body.data;
    const [create] = await eventsOf(created.key_id, 1);
    const [rotate] = await eventsOf(rotated.key_id, 1);
    expect(create!.data).to.deep.include({ resource: "signing_key", queue_id: null, change: "created", previous: null });
    expect(create!.data.current).to.deep.equal({ key_id: created.key_id, created_at: created.created_at });
    expect(rotate!.data.change).to.equal("rotated");
    expect(rotate!.data.previous).to.deep.equal({ key_id: created.key_id, valid_until: rotated.previous_key_valid_until });
    expect(rotate!.actor_user_id).to.equal(owner.id);
    const text = JSON.stringify([create, rotate]);
    for (const key of [created, rotated]) {
      expect(text).to.not.include(key.key);
      expect(text).to.not.include(key.standard_webhooks_secret.slice("whsec_".length, 40));
    }
  });

  it("the automatic disable has no acting user; the PATCH that enables the webhook again is `enabled` by its caller", async () => {
    const at = harness.hierarchy(organizationId);
    const receiver = await harness.receiver();
    receiver.respondWith(() => ({ status: 500 }));
    const webhook = await harness.createWebhook(owner, { url: `${receiver.url}/down`, entity_type: "queue", entity_id: at.queueId });
    await harness.statusChanged(at);
    const [, disable] = await eventsOf(webhook.id!, 2);
    expect(disable!.data).to.deep.include({ change: "disabled", resource: "webhook" });
    expect(disable!.actor_user_id).to.equal(null);
    expect(disable!.data.previous).to.deep.include({ status: "active" });
    expect(disable!.data.current).to.deep.include({ status: "disabled" });
    expect((await harness.call("PATCH", `/webhooks/${webhook.id}`, { as: owner, body: {} })).status).to.equal(200);
    const [, , enable] = await eventsOf(webhook.id!, 3);
    expect(enable!.data).to.deep.include({ change: "enabled" });
    expect(enable!.actor_user_id).to.equal(owner.id);
    expect(enable!.data.current).to.deep.include({ status: "active", disabled_reason: null });
  });
});
