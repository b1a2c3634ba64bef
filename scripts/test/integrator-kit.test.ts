import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { checkInvoice, createReceiver, type ReceivedEvent } from "@docex/example-receiver";
import { eventually } from "@docex/testkit";
import { sign, type ValidationRequestPayload } from "@docex/webhook-kit";
import { expect } from "chai";
import { type Answer, type Stack, sharedStack } from "./support/stack.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const VALID_IBAN = "DE89370400440532013000";

interface DocumentMessage {
  key: string | null;
  message: string;
  severity: string;
}

/**
 * What an integrator builds with @docex/webhook-kit, run against the whole stack: the example receiver
 * (examples/receiver) gets docex's signed deliveries and verifies them with the kit, and answers
 * document_validation with an answer signed by the kit, which docex checks and applies.
 */
describe("the integrator kit: the example receiver against the whole stack (npm start, through the gateway)", function () {
  this.timeout(60_000);
  let stack: Stack;
  let token = "";
  let userId = "";
  let organizationId = "";
  let signingKey = "";
  let receiver: Server;
  let receiverUrl = "";
  let queueId = "";
  let documentId = "";
  const events: ReceivedEvent[] = [];
  const validationCalls: ValidationRequestPayload[] = [];
  const receiverLog: Array<Record<string, unknown>> = [];
  const call = (...args: Parameters<Stack["call"]>) => stack.call(...args);
  const dataOf = (answer: Answer, status: number) => {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(status);
    return answer.body.data;
  };
  const eventFor = (match: (event: ReceivedEvent) => boolean, what: string) =>
    eventually(() => events.find(match), 20_000).catch(() => {
      throw new Error(`the receiver got no verified ${what}; it got ${JSON.stringify(events)} and logged ${JSON.stringify(receiverLog)}`);
    });

  let messages: DocumentMessage[] = [];

  /** PATCHes annotations as a user would; the answer is the document after document_validation. */
  async function edit(annotations: Array<{ key: string; value: string }>) {
    const callsBefore = validationCalls.length;
    const answer = await call("PATCH", `/documents/${documentId}/annotations`, { token, body: { annotations } });
    const document = dataOf(answer, 200);
    messages = document.messages;
    return { document, calls: validationCalls.slice(callsBefore) };
  }

  const fieldValue = (document: { annotations: Array<{ key: string; value: string }> }, key: string) =>
    document.annotations.find((annotation) => annotation.key === key)?.value;

  before(async function () {
    this.timeout(200_000);
    stack = await sharedStack();
    token = (await stack.login(stack.owner.email, stack.owner.password)).access_token;
    userId = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")).sub;
    // An organization of its own, so that no other suite rotates its signing key meanwhile.
    organizationId = dataOf(await call("POST", "/organizations", { token, body: { name: `Integrator kit ${stack.namespace}` } }), 201).id;
    // Other services learn of a new organization from organization.created, a moment after it exists.
    const created = await eventually(async () => {
      const answer = await call("POST", `/organizations/${organizationId}/webhook-signing-key`, { token });
      return answer.status === 404 ? undefined : answer;
    }, 10_000);
    const key = dataOf(created, 201);
    expect(key.key).to.match(/^[0-9a-f]{64}$/);
    signingKey = key.key;

    receiver = createReceiver({
      signingKey,
      onEvent: (event) => {
        events.push(event);
      },
      validate: (request) => {
        validationCalls.push(request);
        return checkInvoice(request);
      },
      log: (entry) => receiverLog.push(entry),
    });
    await new Promise<void>((resolve, reject) => {
      receiver.once("error", reject);
      receiver.listen(0, "127.0.0.1", resolve);
    });
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });

  after(async () => {
    if (!receiver?.listening) return;
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it("receives queue_created from a signed workspace webhook and verifies it with the kit", async () => {
    const workspace = dataOf(
      await call("POST", "/workspaces", { token, body: { organization_id: organizationId, name: "Integrations" } }),
      201,
    );
    const webhook = dataOf(
      await call("POST", "/webhooks", {
        token,
        body: {
          url: `${receiverUrl}/events`,
          entity_type: "workspace",
          entity_id: workspace.id,
          type: "queue_created",
          signature_verification: "enabled",
        },
      }),
      201,
    );
    expect(webhook.signature_verification).to.equal("enabled");
    queueId = dataOf(await call("POST", "/queues", { token, body: { workspace_id: workspace.id, name: "Supplier invoices" } }), 201).id;

    const event = await eventFor((candidate) => candidate.payload.queue_id === queueId, "queue_created");
    expect(event.payload).to.deep.equal({ workspace_id: workspace.id, queue_id: queueId, webhook_event: "queue_created" });
    expect(event.deliveryId).to.match(UUID);
    expect(event.timestamp).to.be.within(Date.now() / 1000 - 120, Date.now() / 1000 + 5);
  });

  it("receives document_status_changed from a signed queue webhook, and refuses what is not signed with the key", async () => {
    const signed = dataOf(
      await call("POST", "/webhooks", {
        token,
        body: { url: `${receiverUrl}/events`, entity_type: "queue", entity_id: queueId, signature_verification: "enabled" },
      }),
      201,
    );
    expect(signed.type).to.equal("document_status_changed");
    // The same receiver behind a webhook that docex does not sign: the kit refuses its deliveries.
    const unsigned = dataOf(
      await call("POST", "/webhooks", {
        token,
        body: { url: `${receiverUrl}/unsigned`, entity_type: "queue", entity_id: queueId, signature_verification: "disabled" },
      }),
      201,
    );

    documentId = dataOf(
      await call("POST", `/queues/${queueId}/documents`, {
        token,
        body: { file_name: "invoice-2026-118.pdf", annotations: [{ key: "total_due", value: "1 250.00" }] },
      }),
      201,
    ).id;
    expect(dataOf(await call("POST", `/documents/${documentId}/status`, { token, body: { status: "extracting" } }), 200).status).to.equal(
      "extracting",
    );
    const extracted = await call("POST", `/documents/${documentId}/extraction`, {
      token,
      body: { annotations: [{ key: "invoice_id", value: "2026-118" }], confidence: 88 },
    });
    expect(dataOf(extracted, 200).status).to.equal("to_validate");

    const ofDocument = (status: string) => (event: ReceivedEvent) =>
      event.payload.webhook_event === "document_status_changed" &&
      event.payload.document_id === documentId &&
      event.payload.status === status;
    const extracting = await eventFor(ofDocument("extracting"), "document_status_changed (extracting)");
    const toValidate = await eventFor(ofDocument("to_validate"), "document_status_changed (to_validate)");
    expect(extracting.payload).to.deep.equal({
      document_id: documentId,
      queue_id: queueId,
      status: "extracting",
      webhook_event: "document_status_changed",
    });
    expect(extracting.deliveryId).to.match(UUID);
    expect(toValidate.deliveryId).to.match(UUID).and.not.equal(extracting.deliveryId);

    // docex saw the receiver's 204 for each signed delivery, and its 401 for each unsigned one.
    await eventually(async () => {
      const deliveries = (await call("GET", `/webhooks/${signed.id}/deliveries`, { token })).body.data;
      return deliveries?.length === 2 && deliveries.every((delivery: { status: string }) => delivery.status === "succeeded")
        ? true
        : undefined;
    }, 20_000);
    const refused = await eventually(async () => {
      const deliveries = (await call("GET", `/webhooks/${unsigned.id}/deliveries`, { token })).body.data;
      return deliveries?.length === 2 && deliveries.every((delivery: { attempts: unknown[] }) => delivery.attempts.length > 0)
        ? deliveries
        : undefined;
    }, 20_000);
    for (const delivery of refused) {
      expect(delivery.status).not.to.equal("succeeded");
      expect(delivery.attempts[0].status_code).to.equal(401);
    }
    expect(receiverLog).to.deep.include({ msg: "rejected a request with a bad signature", reason: "missing" });
    expect(events.filter(ofDocument("extracting"))).to.have.length(1);
    expect((await call("DELETE", `/webhooks/${unsigned.id}`, { token })).status).to.equal(204);

    // A signed body altered on the way is refused; a repeat of a handled delivery is acknowledged, not handled again.
    const body = JSON.stringify(extracting.payload);
    const post = (text: string, signature: string) =>
      fetch(`${receiverUrl}/events`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-signature": signature, "x-service-delivery-id": extracting.deliveryId! },
        body: text,
      });
    expect((await post(body.replace('"extracting"', '"exported"'), sign(body, signingKey))).status).to.equal(401);
    expect((await post(body, sign(body, signingKey))).status).to.equal(204);
    expect(events.filter(ofDocument("extracting"))).to.have.length(1);
  });

  it("registers the receiver as the queue's signed document_validation link", async () => {
    const link = dataOf(
      await call("POST", `/queues/${queueId}/external-validation-links`, {
        token,
        body: { url: `${receiverUrl}/validation`, type: "document_validation", signature_verification: "enabled" },
      }),
      201,
    );
    expect(link).to.include({ queue_id: queueId, type: "document_validation", signature_verification: "enabled" });
  });

  it("applies the receiver's signed object-form answer to a user's edit, the first validated one of the stack: a replaced value and an info message", async () => {
    // No warm-up edit before it: the services open and warm the channels and pools an edit needs before they are ready.
    const { document, calls } = await edit([
      { key: "invoice_id", value: "2026-118-A" },
      { key: "iban", value: "de89 3704 0044 0532 0130 00" },
    ]);
    expect(calls, `validation calls; the document's messages: ${JSON.stringify(messages)}`).to.have.length(1);
    const request = calls[0]!;
    expect(request).to.include({ document_id: documentId, queue_id: queueId, user_id: userId, webhook_event: "document_validation" });
    expect(fieldValue(request, "iban")).to.equal("de89 3704 0044 0532 0130 00");
    expect(fieldValue(request, "invoice_id")).to.equal("2026-118-A");
    expect(request.previous_annotations.find((annotation) => annotation.key === "iban")?.value ?? "").to.equal("");

    expect(fieldValue(document, "iban"), JSON.stringify(messages)).to.equal(VALID_IBAN);
    expect(messages).to.deep.equal([{ key: "iban", severity: "info", message: "IBAN rewritten without spaces, in capitals." }]);
    const stored = dataOf(await call("GET", `/documents/${documentId}`, { token }), 200);
    expect(fieldValue(stored, "iban")).to.equal(VALID_IBAN);
    expect(stored.messages).to.deep.equal(messages);
  });

  it("blocks the export while the receiver's answer has an error, and lets it go once the next answer has none", async () => {
    const wrong = await edit([{ key: "iban", value: "DE00370400440532013000" }]);
    expect(fieldValue(wrong.document, "iban")).to.equal("DE00370400440532013000");
    expect(messages.map((message) => [message.key, message.severity])).to.deep.equal([["iban", "error"]]);
    const blocked = await call("POST", `/documents/${documentId}/status`, { token, body: { status: "ready_to_export" } });
    expect(blocked.status, JSON.stringify(blocked.body)).to.equal(409);
    expect(blocked.body.code).to.equal("blocked_by_error_messages");

    await edit([{ key: "iban", value: VALID_IBAN }]);
    expect(messages).to.deep.equal([]);
    const moved = await call("POST", `/documents/${documentId}/status`, { token, body: { status: "ready_to_export" } });
    expect(dataOf(moved, 200).status).to.equal("ready_to_export");
    await eventFor(
      (event) =>
        event.payload.webhook_event === "document_status_changed" &&
        event.payload.document_id === documentId &&
        event.payload.status === "ready_to_export",
      "document_status_changed (ready_to_export)",
    );
  });
});
