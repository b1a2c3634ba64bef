import { eventually } from "@docex/testkit";
import { expect } from "chai";
import { type Person, WebhookHarness } from "./support/harness.js";

interface ListedAttempt {
  number: number;
  status_code: number | null;
  succeeded: boolean;
  error: string | null;
  response_body: string | null;
}

interface ListedDelivery {
  id: string;
  status: string;
  attempt_count: number;
  last_error: string | null;
  attempts: ListedAttempt[];
}

describe("deliveries of a burst, created, claimed and recorded in batches (real Postgres, NATS, membership and receivers; document service played by a gRPC double)", () => {
  let harness: WebhookHarness;
  let owner: Person;
  let organizationId: string;

  before(async () => {
    // Four attempts in flight at most: a burst's deliveries are created due (not leased at birth), claimed a few at a
    // time, and their outcomes recorded many per statement. Schedule 0.3 s, 0.6 s: three attempts.
    harness = await WebhookHarness.start({ WEBHOOK_MAX_IN_FLIGHT: 4 });
    const team = await harness.team([]);
    owner = team.owner;
    organizationId = team.organization.id;
  });

  after(async () => {
    await harness.stop();
  });

  async function finished(webhookId: string, count: number): Promise<ListedDelivery[]> {
    return eventually(async () => {
      const answer = await harness.deliveries(owner, webhookId, "?page_size=100");
      const deliveries = answer.body.data as ListedDelivery[];
      return deliveries.length === count && deliveries.every((delivery) => delivery.status !== "pending") ? deliveries : undefined;
    }, 30_000);
  }

  it("records each outcome of a batch as it came out: successes beside failures, and an answer holding a NUL byte holds back none of them", async () => {
    const at = harness.hierarchy(organizationId);
    const healthy = await harness.receiver();
    const gone = await harness.receiver();
    // 404 fails the attempt without counting against the receiver's breaker: every delivery gets its three attempts.
    gone.respondWith(() => ({ status: 404, body: "gone\u0000for good" }));
    const up = await harness.createWebhook(owner, { url: `${healthy.url}/up`, entity_type: "queue", entity_id: at.queueId });
    const down = await harness.createWebhook(owner, { url: `${gone.url}/down`, entity_type: "queue", entity_id: at.queueId });

    const events = 12;
    await Promise.all(Array.from({ length: events }, () => harness.statusChanged(at)));

    const succeeded = await finished(up.id!, events);
    for (const delivery of succeeded) {
      expect(delivery).to.deep.include({ status: "succeeded", attempt_count: 1, last_error: null });
      expect(delivery.attempts.map(({ number, status_code, succeeded }) => ({ number, status_code, succeeded }))).to.deep.equal([
        { number: 1, status_code: 200, succeeded: true },
      ]);
    }
    expect(healthy.requests).to.have.length(events);

    const failed = await finished(down.id!, events);
    for (const delivery of failed) {
      expect(delivery).to.deep.include({ status: "failed", attempt_count: 3, last_error: "receiver answered HTTP 404" });
      expect(delivery.attempts.map(({ number }) => number)).to.deep.equal([1, 2, 3]);
      for (const attempt of delivery.attempts) {
        expect(attempt).to.deep.include({ status_code: 404, succeeded: false, error: "receiver answered HTTP 404" });
        // Postgres text holds no NUL: it is kept as U+FFFD.
        expect(attempt.response_body).to.equal("gone\uFFFDfor good");
      }
    }
    expect(gone.requests).to.have.length(events * 3);

    // Each webhook's receiver health comes from its own attempts, wherever they were recorded.
    const health = async (webhookId: string) => (await harness.call("GET", `/webhooks/${webhookId}/health`, { as: owner })).body.data;
    expect(await health(up.id!)).to.deep.include({ attempts: events, success_rate: 1, failing_since: null });
    expect((await health(up.id!)).last_success_at).to.be.a("string");
    expect(await health(down.id!)).to.deep.include({ attempts: events * 3, success_rate: 0, last_success_at: null });
    expect((await health(down.id!)).failing_since).to.be.a("string");

    // Created deliveries are counted whether they were leased at birth or created due.
    const metrics = await (await fetch(`http://127.0.0.1:${harness.webhook.running.httpPort}/metrics`)).text();
    expect(metrics).to.match(new RegExp(`^webhook_deliveries_created_total\\{type="document_status_changed"[^}]*\\} ${events * 2}$`, "m"));
  });
});
