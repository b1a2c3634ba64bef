import { eventually } from "@docex/testkit";
import { expect } from "chai";
import { type Person, WebhookHarness } from "./support/harness.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Short settings so that a "5 days" run of failures fits in a test: disabled after 1.5 s of failing, swept every 200 ms.
describe("receiver health and disabling a webhook that keeps failing (real Postgres, NATS, membership and receivers; document service played by a gRPC double)", function () {
  this.timeout(60_000);
  let harness: WebhookHarness;
  let owner: Person;
  let editor: Person;
  let organizationId: string;

  before(async () => {
    harness = await WebhookHarness.start({
      WEBHOOK_RETRY_SCHEDULE: "0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2",
      WEBHOOK_BREAKER_VOLUME_THRESHOLD: 3,
      WEBHOOK_DISABLE_AFTER_FAILING_MS: 1_500,
      WEBHOOK_FAILING_SWEEP_INTERVAL_MS: 200,
    });
    const team = await harness.team(["editor"]);
    owner = team.owner;
    [editor] = team.members as [Person];
    organizationId = team.organization.id;
  });

  after(async () => {
    await harness?.stop();
  });

  const healthOf = async (webhookId: string, as = owner) => harness.call("GET", `/webhooks/${webhookId}/health`, { as });

  it("reports the last hour's attempts: success rate, latency percentiles, last success, and no failing run after a success", async () => {
    const at = harness.hierarchy(organizationId);
    const receiver = await harness.receiver();
    let calls = 0;
    // First attempt 503, then 200 after 30 ms.
    receiver.respondWith(() => {
      calls += 1;
      return calls === 1 ? { status: 503 } : { status: 200, delayMs: 30 };
    });
    const webhook = await harness.createWebhook(owner, { url: `${receiver.url}/health`, entity_type: "queue", entity_id: at.queueId });

    const fresh = await healthOf(webhook.id!);
    expect(fresh.status).to.equal(200);
    expect(fresh.body.data).to.deep.equal({
      success_rate: null,
      attempts: 0,
      p50_latency_ms: null,
      p99_latency_ms: null,
      breaker_state: "closed",
      window: "1h",
      last_success_at: null,
      failing_since: null,
    });

    await harness.statusChanged(at);
    await harness.statusChanged(at, "exported", "ready_to_export");
    const report = await eventually(async () => {
      const answer = await healthOf(webhook.id!, editor);
      return answer.body.data.attempts === 3 ? answer.body.data : undefined;
    }, 10_000);
    expect(report.success_rate).to.be.closeTo(2 / 3, 0.001);
    expect(report.p50_latency_ms).to.be.at.least(25);
    expect(report.p99_latency_ms).to.be.at.least(report.p50_latency_ms);
    expect(Date.parse(report.last_success_at)).to.be.closeTo(Date.now(), 10_000);
    expect(report.failing_since).to.equal(null);
  });

  it("is read with the webhook's own rights: another organization's member gets 404, an unknown id 404, no token 401", async () => {
    const at = harness.hierarchy(organizationId);
    const webhook = await harness.createWebhook(owner, {
      url: `${(await harness.receiver()).url}/x`,
      entity_type: "queue",
      entity_id: at.queueId,
    });
    const stranger = (await harness.team([])).owner;
    expect((await healthOf(webhook.id!, stranger)).status).to.equal(404);
    expect((await healthOf("6a0e2f4c-1b3d-4e5f-8a7b-9c0d1e2f3a4b")).status).to.equal(404);
    expect((await harness.call("GET", `/webhooks/${webhook.id}/health`)).status).to.equal(401);
    expect((await harness.call("POST", `/webhooks/${webhook.id}/health`, { as: owner })).status).to.equal(405);
  });

  it("a receiver failing without a success for the configured time is disabled: nothing more is sent until a PATCH enables it", async () => {
    const at = harness.hierarchy(organizationId);
    const receiver = await harness.receiver();
    receiver.respondWith(() => ({ status: 500 }));
    const webhook = await harness.createWebhook(owner, { url: `${receiver.url}/down`, entity_type: "queue", entity_id: at.queueId });
    // A healthy neighbour on the same queue stays active throughout.
    const healthy = await harness.receiver();
    const neighbour = await harness.createWebhook(owner, { url: `${healthy.url}/up`, entity_type: "queue", entity_id: at.queueId });

    await harness.statusChanged(at);
    // Three failed attempts open the receiver's breaker (volume threshold 3).
    // The breaker opens as the third failure is seen; the attempt is recorded a moment later.
    const failing = await eventually(async () => {
      const answer = await healthOf(webhook.id!);
      return answer.body.data.breaker_state === "open" && answer.body.data.attempts >= 3 ? answer.body.data : undefined;
    }, 10_000);
    expect(failing.success_rate).to.equal(0);
    expect(failing.attempts).to.be.at.least(3);
    expect(failing.failing_since).to.be.a("string");

    const disabled = await eventually(async () => {
      const answer = await harness.call("GET", `/webhooks/${webhook.id}`, { as: owner });
      return answer.body.data.status === "disabled" ? answer.body.data : undefined;
    }, 10_000);
    expect(disabled.disabled_reason).to.match(/every attempt failed since/);
    expect(Date.parse(disabled.disabled_at) - Date.parse(failing.failing_since)).to.be.at.least(1_400);
    // Its delivery was given up.
    const [given] = (await harness.deliveries(owner, webhook.id!)).body.data;
    expect(given).to.deep.include({ status: "failed", last_error: "webhook disabled: its receiver kept failing" });
    expect((await harness.call("POST", `/webhooks/${webhook.id}/deliveries/${given.id}/retry`, { as: owner })).status).to.equal(409);

    // A new event reaches the healthy neighbour, and nothing reaches the disabled webhook.
    const sentBefore = receiver.requests.length;
    await harness.statusChanged(at, "exported", "ready_to_export");
    await healthy.waitForRequests(2);
    await sleep(500);
    expect(receiver.requests.length).to.equal(sentBefore);
    expect((await harness.deliveries(owner, webhook.id!)).body.data).to.have.length(1);
    expect((await harness.call("GET", `/webhooks/${neighbour.id}`, { as: owner })).body.data.status).to.equal("active");

    // The integrator fixes the receiver and PATCHes the webhook: enabled, its failing run forgotten, deliveries flow again.
    receiver.respondWith(() => ({ status: 200 }));
    const enabled = await harness.call("PATCH", `/webhooks/${webhook.id}`, { as: owner, body: {} });
    expect(enabled.status).to.equal(200);
    expect(enabled.body.data).to.deep.include({ status: "active", disabled_reason: null, disabled_at: null });
    expect((await healthOf(webhook.id!)).body.data.failing_since).to.equal(null);
    await harness.statusChanged(at, "deleted", "exported");
    await eventually(async () => (receiver.requests.length > sentBefore ? true : undefined), 10_000);
    await sleep(1_800);
    expect((await harness.call("GET", `/webhooks/${webhook.id}`, { as: owner })).body.data.status).to.equal("active");
  });

  it("a delivery whose attempt is under way when its webhook is disabled is failed as soon as that attempt is recorded, and nothing more is sent", async () => {
    const at = harness.hierarchy(organizationId);
    const receiver = await harness.receiver();
    // The first attempt fails at once (the run of failures starts); the retry hangs 3 s, well past the 1.5 s after
    // which the sweep disables the webhook, so its delivery is held by a sender when that happens.
    receiver.respondWith(() => (receiver.requests.length === 1 ? { status: 500 } : { status: 500, delayMs: 3_000 }));
    const webhook = await harness.createWebhook(owner, { url: `${receiver.url}/hangs`, entity_type: "queue", entity_id: at.queueId });
    await harness.statusChanged(at);
    await receiver.waitForRequests(2);

    await eventually(async () => {
      const answer = await harness.call("GET", `/webhooks/${webhook.id}`, { as: owner });
      return answer.body.data.status === "disabled" ? true : undefined;
    }, 10_000);

    // The hung attempt answers: recorded with it, the delivery is failed (no retry is scheduled), and nothing more is sent.
    await eventually(async () => {
      const [delivery] = (await harness.deliveries(owner, webhook.id!)).body.data;
      return delivery.attempts.length === 2 ? true : undefined;
    }, 10_000);
    // Read again: the list reads the delivery before its attempts, so the first sight of the attempt may be a moment early.
    const [recorded] = (await harness.deliveries(owner, webhook.id!)).body.data;
    expect(recorded).to.deep.include({ status: "failed", last_error: "webhook disabled: its receiver kept failing" });
    await sleep(500);
    expect(receiver.requests).to.have.length(2);
  });

  it("a success ends the run of failures: a receiver that recovers is not disabled", async () => {
    const at = harness.hierarchy(organizationId);
    const receiver = await harness.receiver();
    let calls = 0;
    // The first attempt fails (after 150 ms), its retry 0.2 s later succeeds.
    receiver.respondWith(() => {
      calls += 1;
      return calls === 1 ? { status: 500, delayMs: 150 } : { status: 200 };
    });
    const webhook = await harness.createWebhook(owner, { url: `${receiver.url}/flaky`, entity_type: "document", entity_id: at.documentId });
    await harness.statusChanged(at);
    const run = await eventually(async () => {
      const answer = await healthOf(webhook.id!);
      return answer.body.data.failing_since ? answer.body.data : undefined;
    }, 10_000);
    expect(run.attempts).to.equal(1);
    const ended = await eventually(async () => {
      const answer = await healthOf(webhook.id!);
      return answer.body.data.attempts === 2 ? answer.body.data : undefined;
    }, 10_000);
    expect(ended.failing_since).to.equal(null);
    expect(ended.success_rate).to.equal(0.5);
    // Well past the 1.5 s a run would need, several sweeps later: still active.
    await sleep(2_000);
    expect((await harness.call("GET", `/webhooks/${webhook.id}`, { as: owner })).body.data.status).to.equal("active");
  });
});
