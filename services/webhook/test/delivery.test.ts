import { createHmac, randomUUID } from "node:crypto";
import { eventually, type RecordedRequest, type RecordingReceiver } from "@docex/testkit";
import { expect } from "chai";
import { type AfterFailure, RetryPolicy } from "../src/domain/retry-policy.js";
import { type Hierarchy, type Person, WebhookHarness } from "./support/harness.js";

const hmac = (key: string, body: string) => createHmac("sha256", Buffer.from(key, "utf8")).update(body).digest("hex");
const header = (request: RecordedRequest, name: string) => request.headers[name] as string | undefined;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The test instance's schedule (0.3 s, 0.6 s) with its jitter fixed at the middle, so each wait is exactly the
 * schedule's, and every decision kept: the retry test checks the waits the sender was given and that no retry came
 * before its time, not how long the machine happened to take.
 */
class RecordingRetryPolicy extends RetryPolicy {
  readonly decisions: Array<{ attempt: number; waitMs: number | null; at: number | null }> = [];

  constructor() {
    super({ scheduleSeconds: [0.3, 0.6], random: () => 0.5 });
  }

  override afterFailure(attempt: number, maxAttempts: number, now: Date, retryAfterSeconds?: number): AfterFailure {
    const next = super.afterFailure(attempt, maxAttempts, now, retryAfterSeconds);
    const at = next.kind === "retry" ? next.at.getTime() : null;
    this.decisions.push({ attempt, waitMs: at === null ? null : at - now.getTime(), at });
    return next;
  }
}

describe("delivery of document_status_changed and queue_created (real Postgres, NATS, membership and receivers; document service played by a gRPC double)", () => {
  let harness: WebhookHarness;
  let owner: Person;
  let organizationId: string;
  const retry = new RecordingRetryPolicy();

  before(async () => {
    // Schedule 0.3 s, 0.6 s: three attempts. Breakers reset after 1 s.
    harness = await WebhookHarness.start({}, { retry });
    const team = await harness.team([]);
    owner = team.owner;
    organizationId = team.organization.id;
  });

  after(async () => {
    await harness.stop();
  });

  async function place(): Promise<{ at: Hierarchy; receiver: RecordingReceiver }> {
    return { at: harness.hierarchy(organizationId), receiver: await harness.receiver() };
  }

  async function finished(webhookId: string, count = 1) {
    return eventually(async () => {
      const answer = await harness.deliveries(owner, webhookId);
      const done = answer.body.data.filter((delivery: { status: string; in_flight: boolean }) => delivery.status !== "pending");
      return answer.body.data.length >= count && done.length === answer.body.data.length ? answer.body.data : undefined;
    }, 10_000);
  }

  it("POSTs the spec's body exactly, signed with the key the API returned, which the receiver verifies", async () => {
    const { at, receiver } = await place();
    const key = (await harness.call("POST", `/organizations/${organizationId}/webhook-signing-key`, { as: owner })).body.data.key as string;
    const webhook = await harness.createWebhook(owner, {
      url: `${receiver.url}/signed`,
      entity_type: "queue",
      entity_id: at.queueId,
      signature_verification: "enabled",
    });
    const event = await harness.statusChanged(at, "exported", "exporting");
    const [request] = await receiver.waitForRequests(1);
    expect(request!.method).to.equal("POST");
    expect(request!.path).to.equal("/signed");
    expect(request!.rawBody).to.equal(
      `{"document_id":"${at.documentId}","queue_id":"${at.queueId}","status":"exported","webhook_event":"document_status_changed"}`,
    );
    expect(header(request!, "content-type")).to.equal("application/json");
    expect(header(request!, "x-service-signature")).to.equal(hmac(key, request!.rawBody));
    expect(header(request!, "x-service-delivery-id")).to.match(/^[0-9a-f-]{36}$/);
    expect(Math.abs(Number(header(request!, "x-service-timestamp")) - Date.now() / 1000)).to.be.below(30);

    const [delivery] = await finished(webhook.id!);
    expect(delivery).to.deep.include({
      id: header(request!, "x-service-delivery-id"),
      webhook_id: webhook.id,
      event_id: event.id,
      webhook_event: "document_status_changed",
      status: "succeeded",
      attempt_count: 1,
      next_attempt_at: null,
      last_error: null,
    });
    expect(delivery.payload).to.deep.equal(JSON.parse(request!.rawBody));
    expect(delivery.attempts).to.have.length(1);
    expect(delivery.attempts[0]).to.deep.include({ number: 1, status_code: 200, succeeded: true, error: null, manual: false });

    // A rotated key signs every attempt after the rotation.
    const rotated = (await harness.call("POST", `/organizations/${organizationId}/webhook-signing-key`, { as: owner })).body.data
      .key as string;
    await harness.statusChanged(at, "deleted", "exported");
    const second = (await receiver.waitForRequests(2))[1]!;
    expect(header(second, "x-service-signature")).to.equal(hmac(rotated, second.rawBody));
    expect(header(second, "x-service-signature")).to.not.equal(hmac(key, second.rawBody));
  });

  it("sends no signature when the webhook has signing off (signing on without a key: see signing-required.test.ts)", async () => {
    const { at, receiver } = await place();
    await harness.createWebhook(owner, { url: `${receiver.url}/plain`, entity_type: "document", entity_id: at.documentId });
    await harness.statusChanged(at);
    const [request] = await receiver.waitForRequests(1);
    expect(header(request!, "x-service-signature")).to.equal(undefined);
  });

  it("fans one status change out to the document's, queue's, workspace's and organization's webhooks, once each", async () => {
    const team = await harness.team([]);
    const at = harness.hierarchy(team.organization.id);
    const sibling = harness.documents.addDocument(at.queueId);
    const receiver = await harness.receiver();
    const targets = [
      ["document", at.documentId],
      ["queue", at.queueId],
      ["workspace", at.workspaceId],
      ["organization", at.organizationId],
    ] as const;
    for (const [entityType, entityId] of targets) {
      await harness.createWebhook(team.owner, { url: `${receiver.url}/${entityType}`, entity_type: entityType, entity_id: entityId });
    }
    await harness.createWebhook(team.owner, { url: `${receiver.url}/sibling`, entity_type: "document", entity_id: sibling });
    await harness.createWebhook(team.owner, {
      url: `${receiver.url}/queue-created`,
      entity_type: "queue",
      entity_id: at.queueId,
      type: "queue_created",
    });
    await harness.createWebhook(team.owner, {
      url: `${receiver.url}/validation`,
      entity_type: "queue",
      entity_id: at.queueId,
      type: "document_validation",
    });

    const event = await harness.statusChanged(at, "to_validate", "received");
    await receiver.waitForRequests(4);
    await sleep(400);
    expect(receiver.requests.map((request) => request.path).sort()).to.deep.equal(["/document", "/organization", "/queue", "/workspace"]);
    expect(new Set(receiver.requests.map((request) => header(request, "x-service-delivery-id"))).size).to.equal(4);
    for (const request of receiver.requests)
      expect(JSON.parse(request.rawBody)).to.deep.equal({
        document_id: at.documentId,
        queue_id: at.queueId,
        status: "to_validate",
        webhook_event: "document_status_changed",
      });

    // The same event again (a republish after the duplicate window, a redelivery): no new deliveries.
    await harness.bus.publish("docex.document.status_changed", event, { msgId: `${event.id}-again` });
    await sleep(600);
    expect(receiver.requests).to.have.length(4);
  });

  it("delivers queue_created to the workspace's and the organization's webhooks with the spec's body", async () => {
    const team = await harness.team([]);
    const at = harness.hierarchy(team.organization.id);
    const receiver = await harness.receiver();
    await harness.createWebhook(team.owner, {
      url: `${receiver.url}/workspace`,
      entity_type: "workspace",
      entity_id: at.workspaceId,
      type: "queue_created",
    });
    await harness.createWebhook(team.owner, {
      url: `${receiver.url}/organization`,
      entity_type: "organization",
      entity_id: at.organizationId,
      type: "queue_created",
    });
    await harness.createWebhook(team.owner, { url: `${receiver.url}/status`, entity_type: "workspace", entity_id: at.workspaceId });
    const newQueue = harness.documents.addQueue(at.workspaceId);
    await harness.queueCreated({ organizationId: at.organizationId, workspaceId: at.workspaceId, queueId: newQueue });
    await receiver.waitForRequests(2);
    await sleep(300);
    expect(receiver.requests.map((request) => request.path).sort()).to.deep.equal(["/organization", "/workspace"]);
    for (const request of receiver.requests) {
      expect(request.rawBody).to.equal(`{"workspace_id":"${at.workspaceId}","queue_id":"${newQueue}","webhook_event":"queue_created"}`);
    }
  });

  it("when the receiver answers 500, retries after the next interval of the schedule and stops at success", async () => {
    const { at, receiver } = await place();
    receiver.respondWith(() => (receiver.requests.length <= 2 ? { status: 500, body: "try later" } : { status: 204 }));
    const webhook = await harness.createWebhook(owner, { url: `${receiver.url}/flaky`, entity_type: "queue", entity_id: at.queueId });
    const decided = retry.decisions.length;
    await harness.statusChanged(at);
    const requests = await receiver.waitForRequests(3, 5_000);
    // The sender asked the policy after each failure and was given the schedule's waits; each retry came no earlier
    // than the time it was given (the policy is the one that applies ±20 %: retry-policy.test.ts).
    const decisions = retry.decisions.slice(decided);
    expect(decisions.map(({ attempt, waitMs }) => ({ attempt, waitMs }))).to.deep.equal([
      { attempt: 1, waitMs: 300 },
      { attempt: 2, waitMs: 600 },
    ]);
    expect(requests[1]!.receivedAt).to.be.at.least(decisions[0]!.at!);
    expect(requests[2]!.receivedAt).to.be.at.least(decisions[1]!.at!);
    expect(new Set(requests.map((request) => header(request, "x-service-delivery-id"))).size).to.equal(1);

    const [delivery] = await finished(webhook.id!);
    expect(delivery.status).to.equal("succeeded");
    expect(delivery.attempts.map((attempt: { status_code: number }) => attempt.status_code)).to.deep.equal([500, 500, 204]);
    expect(delivery.attempts[0]).to.deep.include({ succeeded: false, error: "receiver answered HTTP 500", response_body: "try later" });
    await sleep(800);
    expect(receiver.requests).to.have.length(3);
  });

  it("an answer slower than the timeout is a failed attempt and is retried", async () => {
    const { at, receiver } = await place();
    // The test instance's timeout is 2 s (10 s in production).
    receiver.respondWith(() => (receiver.requests.length === 1 ? { status: 200, delayMs: 2_600 } : { status: 200 }));
    const webhook = await harness.createWebhook(owner, { url: `${receiver.url}/slow`, entity_type: "queue", entity_id: at.queueId });
    await harness.statusChanged(at);
    // 2 s of timeout and a backoff: within 6 s on a quiet machine; the bound leaves room for a loaded one.
    await receiver.waitForRequests(2, 15_000);
    const [delivery] = await finished(webhook.id!);
    expect(delivery.status).to.equal("succeeded");
    expect(delivery.attempts[0]).to.deep.include({ status_code: null, succeeded: false, error: "no answer within 2000 ms" });
    expect(delivery.attempts[0].duration_ms).to.be.within(1_900, 2_600);
    expect(delivery.attempts[1]).to.deep.include({ status_code: 200, succeeded: true });
  });

  it("an event that fails its schema is logged and skipped; the events around it are delivered", async () => {
    const { at, receiver } = await place();
    await harness.createWebhook(owner, { url: `${receiver.url}/mixed`, entity_type: "queue", entity_id: at.queueId });
    const broken = {
      id: randomUUID(),
      type: "document.status_changed",
      occurred_at: new Date().toISOString(),
      organization_id: organizationId,
      data: { queue_id: at.queueId },
    };
    await harness.bus.publish("docex.document.status_changed", broken, { msgId: broken.id });
    await harness.statusChanged(at);
    await receiver.waitForRequests(1);
    await sleep(300);
    expect(receiver.requests).to.have.length(1);
    expect((receiver.requests[0]!.body as { document_id: string }).document_id).to.equal(at.documentId);
  });

  it("honours Retry-After: the next attempt waits as long as the receiver asked", async () => {
    const { at, receiver } = await place();
    receiver.respondWith(() => (receiver.requests.length === 1 ? { status: 429, headers: { "retry-after": "1" } } : { status: 200 }));
    await harness.createWebhook(owner, { url: `${receiver.url}/busy`, entity_type: "queue", entity_id: at.queueId });
    await harness.statusChanged(at);
    const [first, second] = await receiver.waitForRequests(2, 5_000);
    expect(second!.receivedAt - first!.receivedAt).to.be.at.least(950);
  });

  it("marks the delivery failed after the last attempt, lists it by status, and sends it again on a manual retry", async () => {
    const { at, receiver } = await place();
    receiver.respondWith(() => ({ status: 503, body: "x".repeat(5_000) }));
    const webhook = await harness.createWebhook(owner, { url: `${receiver.url}/down`, entity_type: "queue", entity_id: at.queueId });
    await harness.statusChanged(at);
    await receiver.waitForRequests(3, 5_000);
    const [failed] = await finished(webhook.id!);
    expect(failed).to.deep.include({
      status: "failed",
      attempt_count: 3,
      max_attempts: 3,
      next_attempt_at: null,
      last_error: "receiver answered HTTP 503",
    });
    expect(failed.completed_at).to.be.a("string");
    expect(failed.attempts.map((attempt: { number: number }) => attempt.number)).to.deep.equal([1, 2, 3]);
    expect(failed.attempts[2].response_body).to.have.length(1024);
    await sleep(1_000);
    expect(receiver.requests).to.have.length(3);

    expect((await harness.deliveries(owner, webhook.id!, "?status=failed")).body.data).to.have.length(1);
    expect((await harness.deliveries(owner, webhook.id!, "?status=pending,succeeded")).body.data).to.have.length(0);
    const badStatus = await harness.deliveries(owner, webhook.id!, "?status=lost");
    expect(badStatus.status).to.equal(400);
    expect(badStatus.body.errors[0].path).to.equal("status.0");

    receiver.respondWith(() => ({ status: 200 }));
    const retried = await harness.call("POST", `/webhooks/${webhook.id}/deliveries/${failed.id}/retry`, { as: owner });
    expect(retried.status).to.equal(202);
    expect(retried.body.data).to.deep.include({ id: failed.id, status: "pending", max_attempts: 4 });
    const fourth = (await receiver.waitForRequests(4, 5_000))[3]!;
    expect(header(fourth, "x-service-delivery-id")).to.equal(failed.id);
    const [delivered] = await eventually(async () => {
      const list = (await harness.deliveries(owner, webhook.id!, "?status=succeeded")).body.data;
      return list.length ? list : undefined;
    });
    expect(delivered.attempts).to.have.length(4);
    expect(delivered.attempts[3]).to.deep.include({ number: 4, status_code: 200, succeeded: true, manual: true });

    expect(
      (await harness.call("POST", `/webhooks/${webhook.id}/deliveries/9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a/retry`, { as: owner })).status,
    ).to.equal(404);
  });

  it("a receiver that keeps failing opens its breaker: retries wait for the half-open probe instead of hammering it", async () => {
    const { at, receiver } = await place();
    let healthy = false;
    receiver.respondWith(() => (healthy ? { status: 200 } : { status: 500 }));
    const webhook = await harness.createWebhook(owner, { url: `${receiver.url}/breaker`, entity_type: "queue", entity_id: at.queueId });
    for (let index = 0; index < 12; index++) {
      await harness.statusChanged({ ...at, documentId: harness.documents.addDocument(at.queueId) });
    }
    const breakerLabel = `circuit_breaker_state{breaker="webhook:${receiver.url}",service="webhook"} 2`;
    await eventually(async () => {
      const metrics = await (await fetch(`http://127.0.0.1:${harness.webhook.running.httpPort}/metrics`)).text();
      return metrics.includes(breakerLabel) ? true : undefined;
    }, 5_000);
    // Requests sent before the breaker opened may still be arriving on a loaded machine: count once they have
    // (briefly: the breaker half-opens 1 s after it opened).
    let seenWhileClosed = receiver.requests.length;
    for (let settle = 0; settle < 3; settle++) {
      await sleep(100);
      if (receiver.requests.length === seenWhileClosed) break;
      seenWhileClosed = receiver.requests.length;
    }
    expect(seenWhileClosed).to.be.within(5, 12);
    // Retries fall due 0.3 s after each first attempt; while the breaker is open none of them reaches the receiver.
    await sleep(500);
    expect(receiver.requests).to.have.length(seenWhileClosed);
    healthy = true;
    await eventually(async () => {
      const list = (await harness.deliveries(owner, webhook.id!, "?status=succeeded&page_size=100")).body.data;
      return list.length === 12 ? list : undefined;
    }, 8_000);
    expect(receiver.requests.length).to.be.below(12 * 3);
    const after = await (await fetch(`http://127.0.0.1:${harness.webhook.running.httpPort}/metrics`)).text();
    expect(after).to.match(/webhook_deliveries_total\{outcome="deferred",service="webhook"\} [1-9]/);
    expect(after).to.include(`circuit_breaker_state{breaker="webhook:${receiver.url}",service="webhook"} 0`);
  });

  it("deleting a webhook while a sender records an outcome of its delivery waits for it: 204, not a deadlock's 500", async () => {
    const { at, receiver } = await place();
    receiver.respondWith(() => ({ status: 500 }));
    const webhook = await harness.createWebhook(owner, { url: `${receiver.url}/busy`, entity_type: "queue", entity_id: at.queueId });
    await harness.statusChanged(at);
    await receiver.waitForRequests(1);
    // Locks as the sender's outcome record takes them: the delivery, then (receiver health) its webhook.
    const sender = await harness.connection();
    try {
      await sender.query("BEGIN");
      const locked = await sender.query("SELECT id FROM deliveries WHERE webhook_id = $1 FOR UPDATE", [webhook.id]);
      expect(locked.rows).to.have.length(1);
      const deleting = harness.call("DELETE", `/webhooks/${webhook.id}`, { as: owner });
      await sleep(300); // the deletion now waits for the delivery
      await sender.query("UPDATE webhooks SET updated_at = updated_at WHERE id = $1", [webhook.id]);
      await sender.query("COMMIT");
      expect((await deleting).status).to.equal(204);
    } finally {
      await sender.end();
    }
    expect((await harness.call("GET", `/webhooks/${webhook.id}`, { as: owner })).status).to.equal(404);
  });

  it("deleting a webhook drops its pending deliveries", async () => {
    const { at, receiver } = await place();
    receiver.respondWith(() => ({ status: 500 }));
    const webhook = await harness.createWebhook(owner, { url: `${receiver.url}/gone`, entity_type: "queue", entity_id: at.queueId });
    await harness.statusChanged(at);
    await receiver.waitForRequests(1);
    expect((await harness.call("DELETE", `/webhooks/${webhook.id}`, { as: owner })).status).to.equal(204);
    await sleep(1_200);
    expect(receiver.requests).to.have.length(1);
  });
});
