import { createWebhookClient, type WebhookClient } from "@docex/protos";
import { eventually, testGrpcIdentity } from "@docex/testkit";
import { expect } from "chai";
import { SIGNING_KEY_MISSING_REASON } from "../src/domain/signing-requirement.js";
import { type Answer, WebhookHarness } from "./support/harness.js";

/** API.md "Signing": signing on in an organization without a key is refused, and rows saved before that fail closed. */
describe("signature verification needs the organization's signing key (real membership in-process; document service played by a gRPC double)", () => {
  let harness: WebhookHarness;
  let client: WebhookClient;

  before(async () => {
    harness = await WebhookHarness.start();
    client = createWebhookClient(`127.0.0.1:${harness.webhook.running.grpcPort}`, {
      identity: testGrpcIdentity("document"),
      deadlineMs: 5_000,
    });
  });

  after(async () => {
    client?.close();
    await harness.stop();
  });

  function expectKeyMissing(answer: Answer, organizationId: string): void {
    expect(answer.status).to.equal(409);
    expect(answer.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(answer.body.code).to.equal("signing_key_missing");
    expect(answer.body.detail).to.include(organizationId).and.to.include("webhook signing key");
    expect(answer.body.errors.map((error: { path: string }) => error.path)).to.deep.equal(["signature_verification"]);
  }

  it("is 409 signing_key_missing on create and PATCH of webhooks and on registering validation targets, storing nothing; with the key it is accepted", async () => {
    const { organization, owner } = await harness.team([]);
    const at = harness.hierarchy(organization.id);
    const url = `${(await harness.receiver()).url}/hook`;

    expectKeyMissing(
      await harness.call("POST", "/webhooks", {
        as: owner,
        body: { url, entity_type: "queue", entity_id: at.queueId, signature_verification: "enabled" },
      }),
      organization.id,
    );
    expectKeyMissing(
      await harness.call("POST", "/webhooks", {
        as: owner,
        body: { url, entity_type: "queue", entity_id: at.queueId, type: "document_validation", signature_verification: "enabled" },
      }),
      organization.id,
    );
    expect((await harness.call("GET", `/queues/${at.queueId}/webhooks`, { as: owner })).body.data).to.deep.equal([]);

    const plain = await harness.createWebhook(owner, { url, entity_type: "queue", entity_id: at.queueId });
    expectKeyMissing(
      await harness.call("PATCH", `/webhooks/${plain.id}`, { as: owner, body: { signature_verification: "enabled" } }),
      organization.id,
    );
    expect((await harness.call("GET", `/webhooks/${plain.id}`, { as: owner })).body.data.signature_verification).to.equal("disabled");

    // A queue's link: the document service registers its receiver here, and signing on needs the key too.
    const register = (signatureVerification: string) =>
      client.registerValidationTarget({ organization_id: organization.id, url, signature_verification: signatureVerification }).then(
        () => undefined,
        (failure: Error & { code?: string; status?: number }) => failure,
      );
    const refused = await register("enabled");
    expect(refused?.message).to.include("webhook signing key");
    expect(await harness.sql("SELECT 1 FROM validation_targets WHERE organization_id = $1", [organization.id])).to.have.lengthOf(0);
    expect(await register("disabled")).to.equal(undefined);

    expect((await harness.call("POST", `/organizations/${organization.id}/webhook-signing-key`, { as: owner })).status).to.equal(201);
    const patched = await harness.call("PATCH", `/webhooks/${plain.id}`, { as: owner, body: { signature_verification: "enabled" } });
    expect(patched.status).to.equal(200);
    expect(patched.body.data.signature_verification).to.equal("enabled");
    expect(await register("enabled")).to.equal(undefined);
    // Turning signing off never needs a key.
    const off = await harness.call("PATCH", `/webhooks/${plain.id}`, { as: owner, body: { signature_verification: "disabled" } });
    expect(off.status).to.equal(200);
  });

  it("a webhook saved with signing on before the rule, in an organization without a key, is never sent unsigned; a key makes its retry signed", async () => {
    const { organization, owner } = await harness.team([]);
    const at = harness.hierarchy(organization.id);
    const receiver = await harness.receiver();
    const webhook = await harness.createWebhook(owner, { url: `${receiver.url}/legacy`, entity_type: "queue", entity_id: at.queueId });
    await harness.sql(`UPDATE webhooks SET signature_verification = 'enabled' WHERE id = $1`, [webhook.id]);

    await harness.statusChanged(at);
    const [delivery] = await eventually(async () => {
      const list = (await harness.deliveries(owner, webhook.id!)).body.data;
      return list[0]?.attempts.length ? list : undefined;
    });
    expect(delivery.attempts[0]).to.deep.include({ status_code: null, succeeded: false, error: SIGNING_KEY_MISSING_REASON });
    expect(delivery.status).to.equal("pending");
    expect(receiver.requests).to.have.length(0);

    expect((await harness.call("POST", `/organizations/${organization.id}/webhook-signing-key`, { as: owner })).status).to.equal(201);
    expect((await harness.call("POST", `/webhooks/${webhook.id}/deliveries/${delivery.id}/retry`, { as: owner })).status).to.equal(202);
    const [signed] = await receiver.waitForRequests(1);
    expect(signed!.headers["x-service-signature"]).to.match(/^[0-9a-f]{64}$/);
  });

  it("a validation target saved with signing on before the rule is not called: unavailable, never unchecked", async () => {
    const { organization, owner } = await harness.team([]);
    const at = harness.hierarchy(organization.id);
    const receiver = await harness.receiver();
    const { target_id: targetId } = await client.registerValidationTarget({
      organization_id: at.organizationId,
      url: `${receiver.url}/validate`,
      signature_verification: "disabled",
    });
    await harness.sql(`UPDATE validation_targets SET signature_verification = 'enabled' WHERE id = $1`, [targetId]);

    const answer = await client.validate({
      type: "document_validation",
      document_id: at.documentId,
      queue_id: at.queueId,
      workspace_id: at.workspaceId,
      organization_id: at.organizationId,
      user_id: owner.id,
      previous_annotations_json: "[]",
      annotations_json: JSON.stringify([{ key: "invoice_id", value: "INV-1" }]),
      timeout_ms: 0,
      target_id: targetId,
    });
    // The link's failure policy is the document service's to apply; the webhook service says what happened.
    expect(answer).to.include({ outcome: "unavailable" });
    expect(answer.reason).to.include("no webhook signing key");
    expect(receiver.requests).to.have.length(0);
  });
});
