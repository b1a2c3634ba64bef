import { eventually } from "@docex/testkit";
import { expect } from "chai";
import { type Person, WebhookHarness } from "./support/harness.js";

const MAX_PER_ORGANIZATION = 3;
const SLOTS = 8;
const SLOTS_PER_ORGANIZATION = 2;
const HANG_MS = 7_000;

describe("webhooks per organization are capped, and delivery slots are shared fairly between organizations (issue 39, real Postgres and NATS)", () => {
  let harness: WebhookHarness;

  before(async () => {
    harness = await WebhookHarness.start({
      WEBHOOK_MAX_PER_ORGANIZATION: MAX_PER_ORGANIZATION,
      WEBHOOK_MAX_IN_FLIGHT: SLOTS,
      WEBHOOK_MAX_IN_FLIGHT_PER_ORGANIZATION: SLOTS_PER_ORGANIZATION,
      // A hung receiver answers nothing until the timeout; its breaker must not be what saves the others here.
      WEBHOOK_DELIVERY_TIMEOUT_MS: HANG_MS + 1_000,
      WEBHOOK_DELIVERY_LEASE_MS: HANG_MS + 3_000,
      WEBHOOK_BREAKER_VOLUME_THRESHOLD: 10_000,
    });
  });

  after(async () => {
    await harness?.stop();
  });

  const queueWebhook = (as: Person, url: string, queueId: string) =>
    harness.call("POST", "/webhooks", { as, body: { url, entity_type: "queue", entity_id: queueId } });

  it(`refuses an organization's webhook past ${MAX_PER_ORGANIZATION} with 409 webhook_limit_reached problem+json, and creates nothing`, async () => {
    const { owner, organization } = await harness.team([]);
    const receiver = await harness.receiver();
    const at = harness.hierarchy(organization.id);
    for (let index = 0; index < MAX_PER_ORGANIZATION; index += 1) {
      expect((await queueWebhook(owner, `${receiver.url}/hook-${index}`, at.queueId)).status).to.equal(201);
    }
    const refused = await queueWebhook(owner, `${receiver.url}/one-too-many`, at.queueId);
    expect(refused.status).to.equal(409);
    expect(refused.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(refused.body).to.include({ code: "webhook_limit_reached", limit: MAX_PER_ORGANIZATION });
    const rows = await harness.sql<{ count: number }>("SELECT count(*)::int AS count FROM webhooks WHERE organization_id = $1", [
      organization.id,
    ]);
    expect(rows[0]?.count).to.equal(MAX_PER_ORGANIZATION);

    const other = await harness.team([]);
    const elsewhere = await queueWebhook(other.owner, `${receiver.url}/other`, harness.hierarchy(other.organization.id).queueId);
    expect(elsewhere.status, "the cap is per organization").to.equal(201);
  });

  it("an organization whose receiver hangs holds its share of the slots only: another organization's delivery goes out within a second", async () => {
    const hog = await harness.team([]);
    const hogAt = harness.hierarchy(hog.organization.id);
    const hung = await harness.receiver();
    hung.respondWith(() => ({ status: 200, delayMs: HANG_MS }));
    await harness.createWebhook(hog.owner, { url: `${hung.url}/hangs`, entity_type: "queue", entity_id: hogAt.queueId });
    // More deliveries than the whole pool: without a share per organization they would take every slot for HANG_MS.
    for (let index = 0; index < 2 * SLOTS; index += 1) await harness.statusChanged(hogAt);
    await hung.waitForRequests(SLOTS_PER_ORGANIZATION, 5_000);

    const neighbour = await harness.team([]);
    const neighbourAt = harness.hierarchy(neighbour.organization.id);
    const healthy = await harness.receiver();
    await harness.createWebhook(neighbour.owner, { url: `${healthy.url}/fine`, entity_type: "queue", entity_id: neighbourAt.queueId });
    const sentAt = Date.now();
    await harness.statusChanged(neighbourAt);
    const [delivered] = await healthy.waitForRequests(1, HANG_MS);
    const waitedMs = delivered!.receivedAt - sentAt;
    expect(waitedMs, "the neighbour's delivery waited").to.be.below(1_000);
    expect(hung.requests.length, "the hung organization's requests in flight").to.equal(SLOTS_PER_ORGANIZATION);

    // The hog's deliveries are not lost, only paced: its next ones go out as its hung requests time out.
    await eventually(() => (hung.requests.length > SLOTS_PER_ORGANIZATION ? true : undefined), 2 * HANG_MS);
  });
});
