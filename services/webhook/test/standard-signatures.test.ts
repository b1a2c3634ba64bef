import { createHmac } from "node:crypto";
import { createWebhookClient, type WebhookClient } from "@docex/protos";
import type { RecordedRequest } from "@docex/testkit";
import { testGrpcIdentity } from "@docex/testkit";
import { expect } from "chai";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { type Hierarchy, type Person, WebhookHarness } from "./support/harness.js";

const hmac = (key: string, body: string) => createHmac("sha256", Buffer.from(key, "utf8")).update(body).digest("hex");
const header = (request: RecordedRequest, name: string) => request.headers[name] as string | undefined;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the official standardwebhooks library makes of a request, given the secret the API returned. */
function verifiesWith(secret: string, request: RecordedRequest): boolean {
  try {
    new StandardWebhook(secret).verify(request.rawBody, {
      "webhook-id": header(request, "webhook-id")!,
      "webhook-timestamp": header(request, "webhook-timestamp")!,
      "webhook-signature": header(request, "webhook-signature")!,
    });
    return true;
  } catch {
    return false;
  }
}

interface KeyDto {
  key: string;
  key_id: string;
  standard_webhooks_secret: string;
  previous_key_valid_until: string | null;
}

// The grace window is short here (2 s) so that its end can be seen; the default is 24 h (signing-keys.test.ts).
describe("Standard Webhooks headers and signing-key rotation grace (real Postgres, NATS, membership and receivers; document service played by a gRPC double)", function () {
  this.timeout(60_000);
  const GRACE_MS = 2_000;
  let harness: WebhookHarness;
  let owner: Person;
  let organizationId: string;
  let client: WebhookClient;

  before(async () => {
    harness = await WebhookHarness.start({ WEBHOOK_KEY_ROTATION_GRACE_MS: GRACE_MS });
    const team = await harness.team([]);
    owner = team.owner;
    organizationId = team.organization.id;
    client = createWebhookClient(`127.0.0.1:${harness.webhook.running.grpcPort}`, {
      identity: testGrpcIdentity("document"),
      deadlineMs: 5_000,
    });
  });

  after(async () => {
    client?.close();
    await harness?.stop();
  });

  const postKey = async (): Promise<KeyDto> =>
    (await harness.call("POST", `/organizations/${organizationId}/webhook-signing-key`, { as: owner })).body.data;

  async function signedWebhook(at: Hierarchy) {
    const receiver = await harness.receiver();
    await harness.createWebhook(owner, {
      url: `${receiver.url}/hook`,
      entity_type: "queue",
      entity_id: at.queueId,
      signature_verification: "enabled",
    });
    return receiver;
  }

  it("a signed delivery carries webhook-id (the delivery id, kept by retries), webhook-timestamp and webhook-signature the official library verifies", async () => {
    const key = await postKey();
    const at = harness.hierarchy(organizationId);
    const receiver = await signedWebhook(at);
    let calls = 0;
    receiver.respondWith(() => {
      calls += 1;
      return { status: calls === 1 ? 500 : 200 };
    });
    await harness.statusChanged(at);
    const [first, retry] = await receiver.waitForRequests(2);
    for (const request of [first!, retry!]) {
      expect(header(request, "webhook-id")).to.equal(header(request, "x-service-delivery-id"));
      expect(header(request, "webhook-timestamp")).to.equal(header(request, "x-service-timestamp"));
      expect(header(request, "webhook-signature")).to.match(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(header(request, "x-service-signature")).to.equal(hmac(key.key, request.rawBody));
      expect(verifiesWith(key.standard_webhooks_secret, request), "official library, whsec_ secret from the API").to.equal(true);
    }
    expect(header(retry!, "webhook-id")).to.equal(header(first!, "webhook-id"));
    // The signature covers id and timestamp: another id is refused.
    const forged = { ...first!, headers: { ...first!.headers, "webhook-id": "0b0b0b0b-0000-4000-8000-000000000000" } };
    expect(verifiesWith(key.standard_webhooks_secret, forged)).to.equal(false);
  });

  it("an unsigned webhook gets webhook-id and webhook-timestamp but no signatures", async () => {
    const at = harness.hierarchy(organizationId);
    const receiver = await harness.receiver();
    await harness.createWebhook(owner, { url: `${receiver.url}/plain`, entity_type: "queue", entity_id: at.queueId });
    await harness.statusChanged(at);
    const [request] = await receiver.waitForRequests(1);
    expect(header(request!, "webhook-id")).to.equal(header(request!, "x-service-delivery-id"));
    expect(header(request!, "webhook-signature")).to.equal(undefined);
    expect(header(request!, "x-service-signature")).to.equal(undefined);
  });

  it("after a rotation, deliveries are signed with the new and the previous key until the grace window ends, then with the new one only", async () => {
    const old = await postKey();
    const at = harness.hierarchy(organizationId);
    const receiver = await signedWebhook(at);
    const rotated = await postKey();
    expect(rotated.key_id).to.not.equal(old.key_id);
    expect(Date.parse(rotated.previous_key_valid_until!)).to.be.greaterThan(Date.now());

    await harness.statusChanged(at);
    const [during] = await receiver.waitForRequests(1);
    expect(header(during!, "webhook-signature")!.split(" ")).to.have.length(2);
    expect(header(during!, "x-service-signature"), "x-service-signature: the new key only").to.equal(hmac(rotated.key, during!.rawBody));
    expect(verifiesWith(rotated.standard_webhooks_secret, during!)).to.equal(true);
    expect(verifiesWith(old.standard_webhooks_secret, during!)).to.equal(true);

    await sleep(Date.parse(rotated.previous_key_valid_until!) - Date.now() + 200);
    await harness.statusChanged(at, "exported", "ready_to_export");
    const after = (await receiver.waitForRequests(2))[1]!;
    expect(header(after, "webhook-signature")!.split(" ")).to.have.length(1);
    expect(verifiesWith(rotated.standard_webhooks_secret, after)).to.equal(true);
    expect(verifiesWith(old.standard_webhooks_secret, after)).to.equal(false);
    const read = (await harness.call("GET", `/organizations/${organizationId}/webhook-signing-key`, { as: owner })).body.data as KeyDto;
    expect(read.previous_key_valid_until).to.equal(null);
  });

  it("validation: the call carries the Standard Webhooks headers, and an answer signed with the previous key is accepted in the grace window only", async () => {
    const old = await postKey();
    const at = harness.hierarchy(organizationId);
    const receiver = await harness.receiver();
    // The queue's link, as the document service registers its receiver and names it in Validate.
    const { target_id: targetId } = await client.registerValidationTarget({
      organization_id: at.organizationId,
      url: `${receiver.url}/validate`,
      signature_verification: "enabled",
    });
    const body = JSON.stringify([{ key: "invoice_id", value: "INV-9" }]);
    // A receiver that has not switched yet: it signs its answers with the old key.
    receiver.respondWith(() => ({ body, headers: { "x-service-signature": hmac(old.key, body) } }));
    const request = {
      type: "document_validation",
      document_id: at.documentId,
      queue_id: at.queueId,
      workspace_id: at.workspaceId,
      organization_id: at.organizationId,
      user_id: owner.id,
      previous_annotations_json: "[]",
      annotations_json: JSON.stringify([{ key: "invoice_id", value: "INV-8" }]),
      timeout_ms: 0,
      target_id: targetId,
    };
    expect((await client.validate(request)).outcome, "before any rotation").to.equal("ok");

    const rotated = await postKey();
    const during = await client.validate(request);
    expect(during.outcome, "old key, within the grace window").to.equal("ok");
    const call = receiver.requests.at(-1)!;
    expect(call.headers["webhook-id"]).to.equal(call.headers["x-service-delivery-id"]);
    expect(header(call, "webhook-signature")!.split(" ")).to.have.length(2);
    expect(verifiesWith(rotated.standard_webhooks_secret, call)).to.equal(true);
    expect(verifiesWith(old.standard_webhooks_secret, call)).to.equal(true);

    receiver.respondWith(() => ({ body, headers: { "x-service-signature": hmac(rotated.key, body) } }));
    expect((await client.validate(request)).outcome, "new key").to.equal("ok");

    await sleep(Date.parse(rotated.previous_key_valid_until!) - Date.now() + 200);
    receiver.respondWith(() => ({ body, headers: { "x-service-signature": hmac(old.key, body) } }));
    const late = await client.validate(request);
    expect(late.outcome, "old key, after the grace window").to.equal("rejected");
    expect(late.reason).to.match(/x-service-signature does not match/);
    expect(header(receiver.requests.at(-1)!, "webhook-signature")!.split(" ")).to.have.length(1);
  });
});
