import { createHmac, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { createWebhookClient, type ValidateRequest, type ValidateResponse, type WebhookClient } from "@docex/protos";
import type { RecordingReceiver } from "@docex/testkit";
import { testGrpcIdentity } from "@docex/testkit";
import { expect } from "chai";
import { type Hierarchy, type Person, WebhookHarness } from "./support/harness.js";

/** A receiver that never answers; `closed` resolves with how long each first request was held before its connection dropped. */
async function silentReceiver() {
  let resolveClosed: (ms: number) => void = () => undefined;
  const closed = new Promise<number>((resolve) => {
    resolveClosed = resolve;
  });
  const server = createServer((req) => {
    const receivedAt = performance.now();
    req.socket.on("close", () => resolveClosed(performance.now() - receivedAt));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/validate`, closed };
}

/** The value of the sample of `name` whose labels include `labels`, from a Prometheus text exposition. */
function metricValue(text: string, name: string, labels: Record<string, string>): number | undefined {
  const line = text
    .split("\n")
    .find(
      (candidate) =>
        candidate.startsWith(`${name}{`) && Object.entries(labels).every(([key, value]) => candidate.includes(`${key}="${value}"`)),
    );
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

const sign = (key: string, body: string) => createHmac("sha256", Buffer.from(key, "utf8")).update(body).digest("hex");

const ANNOTATIONS = [
  { key: "invoice_id", value: "INV-7" },
  { key: "total_due", value: "121.00", numericValue: 121 },
];

describe("gRPC Validate: the document's validator called within the budget (real membership in-process; document service played by a gRPC double)", function () {
  this.timeout(60_000);
  let harness: WebhookHarness;
  let owner: Person;
  let organizationId: string;
  let client: WebhookClient;

  before(async () => {
    harness = await WebhookHarness.start({ DOCUMENT_VALIDATION_TIMEOUT_MS: 200, INITIAL_VALIDATION_TIMEOUT_MS: 1_500 });
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

  const request = (at: Hierarchy, overrides: Partial<ValidateRequest> = {}): ValidateRequest => ({
    type: "document_validation",
    // As the document service calls it: the queue's link names its target; without one, the lookup of deprecated webhooks.
    target_id: linkTargets.get(`${at.queueId}/${overrides.type ?? "document_validation"}`) ?? "",
    document_id: at.documentId,
    queue_id: at.queueId,
    workspace_id: at.workspaceId,
    organization_id: at.organizationId,
    user_id: owner.id,
    previous_annotations_json: JSON.stringify([{ key: "invoice_id", value: "INV-6" }]),
    annotations_json: JSON.stringify(ANNOTATIONS),
    timeout_ms: 0,
    ...overrides,
  });

  /** The queues' external validation links, as the document service keeps them: `<queue_id>/<type>` → target id. */
  const linkTargets = new Map<string, string>();
  async function link(at: Hierarchy, url: string, options: { signed?: boolean; type?: string } = {}): Promise<string> {
    const registered = await client.registerValidationTarget({
      organization_id: at.organizationId,
      url,
      signature_verification: options.signed ? "enabled" : "disabled",
    });
    linkTargets.set(`${at.queueId}/${options.type ?? "document_validation"}`, registered.target_id);
    return registered.target_id;
  }

  const answerOf = (response: ValidateResponse) => JSON.parse(response.answer_json);

  /** A fresh queue (and document) whose link of `type` points at a fresh receiver. */
  async function linkedQueue(
    options: { type?: string; signed?: boolean } = {},
  ): Promise<{ at: Hierarchy; receiver: RecordingReceiver; targetId: string }> {
    const at = harness.hierarchy(organizationId);
    const receiver = await harness.receiver();
    const targetId = await link(at, `${receiver.url}/validate`, {
      signed: options.signed === true,
      ...(options.type ? { type: options.type } : {}),
    });
    return { at, receiver, targetId };
  }

  async function signingKey(): Promise<string> {
    const existing = await harness.call("GET", `/organizations/${organizationId}/webhook-signing-key`, { as: owner });
    if (existing.status === 200) return existing.body.data.key;
    const created = await harness.call("POST", `/organizations/${organizationId}/webhook-signing-key`, { as: owner });
    return created.body.data.key;
  }

  async function metricsText(): Promise<string> {
    return (await fetch(`http://127.0.0.1:${harness.webhook.running.httpPort}/metrics`)).text();
  }

  it("without a link or validation webhook answers no_validator and calls nobody", async () => {
    const response = await client.validate(request(harness.hierarchy(organizationId)));
    expect(response.outcome).to.equal("no_validator");
    expect(answerOf(response)).to.deep.equal({ replacements: [], messages: [], cells: [], options: {} });
  });

  it("sends the spec's payload, exactly its fields in its order, and normalises an answer of the array form", async () => {
    const { at, receiver } = await linkedQueue();
    receiver.respondWith(() => ({ body: [{ key: "invoice_id", value: "INV-0007" }] }));
    const response = await client.validate(request(at));
    expect(response.outcome).to.equal("ok");
    expect(answerOf(response)).to.deep.equal({
      replacements: [{ key: "invoice_id", value: "INV-0007" }],
      messages: [],
      cells: [],
      options: {},
    });
    const [sent] = receiver.requests;
    expect(sent!.method).to.equal("POST");
    expect(sent!.path).to.equal("/validate");
    expect(sent!.headers["content-type"]).to.equal("application/json");
    expect(sent!.headers["x-service-signature"]).to.equal(undefined);
    expect(sent!.headers["x-service-delivery-id"]).to.match(/^[0-9a-f-]{36}$/);
    expect(Object.keys(sent!.body as object)).to.deep.equal([
      "document_id",
      "queue_id",
      "user_id",
      "previous_annotations",
      "annotations",
      "webhook_event",
    ]);
    expect(sent!.body).to.deep.equal({
      document_id: at.documentId,
      queue_id: at.queueId,
      user_id: owner.id,
      previous_annotations: [{ key: "invoice_id", value: "INV-6" }],
      annotations: ANNOTATIONS,
      webhook_event: "document_validation",
    });
  });

  it("normalises the object form: replacement values, messages of each severity, cells by rowIndex, options; an empty key speaks of the whole document", async () => {
    const { at, receiver } = await linkedQueue();
    receiver.respondWith(() => ({
      body: {
        results: [
          { key: "total_due", value: "121.00", validationResults: [{ message: "Total differs from the order", severity: "error" }] },
          {
            key: "line_items",
            results: [{ key: "total_incl_tax", rowIndex: 1, value: "60.50" }],
            validationResults: [{ message: "Row 2 was recalculated", severity: "info" }],
          },
          { key: "supplier_register_id", options: [{ label: "ACME s.r.o.", value: "12345678" }] },
          { key: "", validationResults: [{ message: "Supplier is on a watch list", severity: "warning" }] },
        ],
      },
    }));
    const response = await client.validate(request(at));
    expect(response.outcome).to.equal("ok");
    expect(answerOf(response)).to.deep.equal({
      replacements: [{ key: "total_due", value: "121.00" }],
      messages: [
        { key: "total_due", message: "Total differs from the order", severity: "error" },
        { key: "line_items", message: "Row 2 was recalculated", severity: "info" },
        { key: null, message: "Supplier is on a watch list", severity: "warning" },
      ],
      cells: [{ key: "total_incl_tax", row_index: 1, value: "60.50" }],
      options: { supplier_register_id: [{ label: "ACME s.r.o.", value: "12345678" }] },
    });
  });

  it("with signing on, signs the call and accepts only an answer signed over its raw body", async () => {
    const key = await signingKey();
    const { at, receiver } = await linkedQueue({ signed: true });
    const body = JSON.stringify([{ key: "invoice_id", value: "INV-0007" }]);

    receiver.respondWith(() => ({ body, headers: { "x-service-signature": sign(key, body) } }));
    const signed = await client.validate(request(at));
    expect(signed.outcome).to.equal("ok");
    const sent = receiver.requests[0]!;
    expect(sent.headers["x-service-signature"]).to.equal(sign(key, sent.rawBody));

    receiver.respondWith(() => ({ body }));
    const unsigned = await client.validate(request(at));
    expect(unsigned).to.include({ outcome: "rejected" });
    expect(unsigned.reason).to.include("no x-service-signature");
    expect(answerOf(unsigned).replacements).to.deep.equal([]);

    receiver.respondWith(() => ({ body, headers: { "x-service-signature": sign("0".repeat(64), body) } }));
    const wrong = await client.validate(request(at));
    expect(wrong).to.include({ outcome: "rejected" });
    expect(wrong.reason).to.include("does not match");

    // Signed over other bytes than those sent (a re-serialised body) does not pass either.
    receiver.respondWith(() => ({ body: `${body} `, headers: { "x-service-signature": sign(key, body) } }));
    expect((await client.validate(request(at))).outcome).to.equal("rejected");
  });

  it("with signing off, an unsigned answer is accepted", async () => {
    await signingKey();
    const { at, receiver } = await linkedQueue({ signed: false });
    receiver.respondWith(() => ({ body: [{ key: "invoice_id", value: "X" }] }));
    expect((await client.validate(request(at))).outcome).to.equal("ok");
  });

  it("rejects malformed JSON, answers in neither form and answers over 1 MiB; an empty 2xx says nothing; a 500 is unavailable", async () => {
    const { at, receiver } = await linkedQueue();
    receiver.respondWith(() => ({ body: "{not json" }));
    expect(await client.validate(request(at))).to.deep.include({ outcome: "rejected", reason: "the answer is not JSON" });

    receiver.respondWith(() => ({ body: { results: [{ key: "total_due", validationResults: [{ message: "x", severity: "fatal" }] }] } }));
    const neither = await client.validate(request(at));
    expect(neither.outcome).to.equal("rejected");
    expect(neither.reason).to.include("neither form").and.include("results.0.validationResults.0.severity");

    const huge = JSON.stringify([{ key: "invoice_id", value: "x".repeat(1024 * 1024) }]);
    receiver.respondWith(() => ({ body: huge }));
    const oversized = await client.validate(request(at));
    expect(oversized).to.deep.include({ outcome: "rejected", reason: "its answer is larger than 1 MiB" });

    receiver.respondWith(() => ({ status: 204 }));
    const empty = await client.validate(request(at));
    expect(empty.outcome).to.equal("ok");
    expect(answerOf(empty)).to.deep.equal({ replacements: [], messages: [], cells: [], options: {} });

    receiver.respondWith(() => ({ status: 500, body: "oops" }));
    expect(await client.validate(request(at))).to.deep.include({ outcome: "unavailable", reason: "it answered HTTP 500" });
  });

  it("a receiver sleeping 2 s is answered unavailable when the 200 ms budget is spent, and its request is aborted", async () => {
    const { at, receiver } = await linkedQueue();
    receiver.respondWith(() => ({ body: [], delayMs: 2_000 }));
    const started = performance.now();
    const response = await client.validate(request(at));
    expect(performance.now() - started).to.be.below(400);
    expect(response.outcome).to.equal("unavailable");
    expect(response.reason).to.equal("no answer within 200 ms");

    // A receiver that never answers sees its connection dropped when the budget is spent, not left open.
    const silent = await silentReceiver();
    try {
      const other = harness.hierarchy(organizationId);
      await link(other, silent.url);
      expect((await client.validate(request(other))).outcome).to.equal("unavailable");
      const held = await silent.closed;
      expect(held).to.be.below(400);
    } finally {
      silent.server.close();
    }
  });

  it("a caller's smaller timeout_ms shortens the budget; a larger one does not lengthen it", async () => {
    const { at, receiver } = await linkedQueue();
    receiver.respondWith(() => ({ body: [], delayMs: 1_000 }));
    const shorter = await client.validate(request(at, { timeout_ms: 80 }));
    expect(shorter.reason).to.equal("no answer within 80 ms");
    const started = performance.now();
    const longer = await client.validate(request(at, { timeout_ms: 5_000 }));
    expect(longer.outcome).to.equal("unavailable");
    expect(performance.now() - started).to.be.below(450);
  });

  it("the caller's gRPC deadline bounds the receiver too: the answer comes back before it; the reason names the budget", async () => {
    const { at, receiver } = await linkedQueue({ type: "initial_document_validation" });
    receiver.respondWith(() => ({ body: [], delayMs: 3_000 }));
    // The type's budget is 1,500 ms and timeout_ms says nothing (0): only the 400 ms deadline limits the call. Past
    // it the call would fail with DEADLINE_EXCEEDED instead of answering.
    const { user_id: _user, ...withoutUser } = request(at, { type: "initial_document_validation" });
    const response = await client.validate(withoutUser, { deadlineMs: 400 });
    expect(response.outcome).to.equal("unavailable");
    expect(response.duration_ms).to.be.below(400);
    // The same words as any other time-out of this budget, so a repeated failure leaves the same warning.
    expect(response.reason).to.equal("no answer within 1500 ms");
  });

  it("initial_document_validation has its own, longer budget and sends user_id null", async () => {
    const { at, receiver } = await linkedQueue({ type: "initial_document_validation" });
    receiver.respondWith(() => ({ body: [{ key: "invoice_id", value: "INV-0007" }], delayMs: 400 }));
    const { user_id: _user, ...withoutUser } = request(at, { type: "initial_document_validation" });
    const response = await client.validate(withoutUser);
    expect(response.outcome).to.equal("ok");
    expect(response.duration_ms).to.be.at.least(390);
    expect(receiver.requests[0]!.body).to.deep.include({ user_id: null, webhook_event: "initial_document_validation" });
    // The queue has no document_validation link: that type has no validator.
    expect((await client.validate(request(at))).outcome).to.equal("no_validator");
  });

  it("after a few failures the link's breaker opens and answers at once without calling; a probe after the reset closes it", async () => {
    const { at, receiver, targetId } = await linkedQueue();
    receiver.respondWith(() => ({ status: 503 }));
    for (let i = 0; i < 5; i++) expect((await client.validate(request(at))).outcome).to.equal("unavailable");
    const sentBefore = receiver.requests.length;
    const started = performance.now();
    const open = await client.validate(request(at));
    expect(performance.now() - started).to.be.below(50);
    expect(open.outcome).to.equal("unavailable");
    expect(open.reason).to.include("circuit breaker open");
    // Until the reset (1 s in tests) lets a probe through: the document service may answer the queue without asking.
    expect(open.link_open_for_ms).to.be.within(1, 1_000);
    expect(receiver.requests.length).to.equal(sentBefore);
    expect(await metricsText()).to.include(`circuit_breaker_state{breaker="webhook:validation-target/${targetId}",service="webhook"} 2`);

    // WEBHOOK_BREAKER_RESET_MS is 1 s in tests: then one probe goes through, and its success closes the breaker.
    receiver.respondWith(() => ({ body: [] }));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await client.validate(request(at))).outcome).to.equal("ok");
    expect(receiver.requests.length).to.equal(sentBefore + 1);
    expect(await metricsText()).to.include(`circuit_breaker_state{breaker="webhook:validation-target/${targetId}",service="webhook"} 0`);
  });

  it("timeouts count against the breaker too: a hanging link opens it", async () => {
    const { at, receiver } = await linkedQueue();
    receiver.respondWith(() => ({ body: [], delayMs: 1_000 }));
    for (let i = 0; i < 5; i++) await client.validate(request(at));
    const open = await client.validate(request(at));
    expect(open.reason).to.include("circuit breaker open");
    expect(open.link_open_for_ms).to.be.greaterThan(0);
  });

  it("a deprecated validation webhook's open breaker says nothing of the queue: link_open_for_ms 0", async () => {
    const at = harness.hierarchy(organizationId);
    const receiver = await harness.receiver();
    receiver.respondWith(() => ({ status: 503 }));
    await harness.createWebhook(owner, {
      url: `${receiver.url}/v`,
      entity_type: "queue",
      entity_id: at.queueId,
      type: "document_validation",
    });
    const failures = [];
    for (let i = 0; i < 5; i++) failures.push(await client.validate(request(at)));
    expect(failures.map((failure) => failure.link_open_for_ms)).to.deep.equal([0, 0, 0, 0, 0]);
    const open = await client.validate(request(at));
    expect(open.reason).to.include("circuit breaker open");
    expect(open.link_open_for_ms).to.equal(0);
  });

  it("falls back to the nearest deprecated validation webhook (document, queue, workspace, organization) where the queue has no link", async () => {
    const at = harness.hierarchy(organizationId);
    const [organizationLevel, queueLevel, linkReceiver] = await Promise.all([harness.receiver(), harness.receiver(), harness.receiver()]);
    for (const [receiver, reply] of [
      [organizationLevel, "organization"],
      [queueLevel, "queue"],
      [linkReceiver, "link"],
    ] as const) {
      receiver.respondWith(() => ({ body: [{ key: "invoice_id", value: reply }] }));
    }
    await harness.createWebhook(owner, {
      url: `${organizationLevel.url}/v`,
      entity_type: "organization",
      entity_id: organizationId,
      type: "document_validation",
    });
    await harness.createWebhook(owner, {
      url: `${queueLevel.url}/v`,
      entity_type: "queue",
      entity_id: at.queueId,
      type: "document_validation",
    });
    expect(answerOf(await client.validate(request(at))).replacements).to.deep.equal([{ key: "invoice_id", value: "queue" }]);
    expect(organizationLevel.requests).to.have.lengthOf(0);

    // The queue's link (the document service names its target) wins over every validation webhook.
    await link(at, `${linkReceiver.url}/v`);
    expect(answerOf(await client.validate(request(at))).replacements).to.deep.equal([{ key: "invoice_id", value: "link" }]);
    expect(queueLevel.requests).to.have.lengthOf(1);
  });

  it("RegisterValidationTarget checks a target as a link (a malformed URL is INVALID_ARGUMENT, signing without the organization's key a conflict); Validate calls a registered target by id, whatever the queue's validators", async () => {
    const malformed = await client
      .registerValidationTarget({ organization_id: organizationId, url: "ftp://example.com/v", signature_verification: "disabled" })
      .then(
        () => undefined,
        (failure: Error & { code?: string }) => failure,
      );
    expect(malformed?.message).to.include("url");
    const keyless = await harness.team([]);
    const unsigned = await client
      .registerValidationTarget({
        organization_id: keyless.organization.id,
        url: "http://127.0.0.1:9/v",
        signature_verification: "enabled",
      })
      .then(
        () => undefined,
        (failure: Error & { code?: string }) => failure,
      );
    expect(unsigned?.code).to.equal("conflict");
    expect(unsigned?.message).to.include("signing key");

    // An organization of its own: no validation webhook of another test applies to its queues.
    const fresh = await harness.team([]);
    const created = await harness.call("POST", `/organizations/${fresh.organization.id}/webhook-signing-key`, { as: fresh.owner });
    const key: string = created.body.data.key;
    const receiver = await harness.receiver();
    const answer = JSON.stringify([{ key: "invoice_id", value: "BY-ID" }]);
    receiver.respondWith(() => ({ body: answer, headers: { "x-service-signature": sign(key, answer) } }));
    const registered = await client.registerValidationTarget({
      organization_id: fresh.organization.id,
      url: `${receiver.url}/validate?token=s3cret`,
      signature_verification: "enabled",
    });
    expect(registered.target_id).to.match(/^[0-9a-f-]{36}$/);
    expect(registered.masked_url).to.equal(`${receiver.url}/validate`);
    // A queue without any validator: the lookup would say no_validator; the caller's choice is called.
    const at = harness.hierarchy(fresh.organization.id);
    expect((await client.validate(request(at))).outcome).to.equal("no_validator");
    const response = await client.validate(request(at, { target_id: registered.target_id }));
    expect(response.outcome, response.reason).to.equal("ok");
    expect(answerOf(response).replacements).to.deep.equal([{ key: "invoice_id", value: "BY-ID" }]);
    expect(receiver.requests).to.have.lengthOf(1);
    expect(receiver.requests[0]!.headers["x-service-signature"]).to.equal(sign(key, receiver.requests[0]!.rawBody));
    expect(receiver.requests[0]!.body).to.include({
      document_id: at.documentId,
      queue_id: at.queueId,
      webhook_event: "document_validation",
    });
  });

  it("DescribeValidationTargets answers the URL (whole and masked) and signing of the organization's targets, registered or a deprecated validation webhook; another organization's ids and unknown ids are left out", async () => {
    const team = await harness.team([]);
    const other = await harness.team([]);
    const receiver = await harness.receiver();
    const registered = await client.registerValidationTarget({
      organization_id: team.organization.id,
      url: `${receiver.url}/validate?token=s3cret`,
      signature_verification: "disabled",
    });
    const at = harness.hierarchy(team.organization.id);
    const webhook = await harness.call("POST", "/webhooks", {
      as: team.owner,
      body: { url: `${receiver.url}/legacy`, entity_type: "queue", entity_id: at.queueId, type: "document_validation" },
    });
    expect(webhook.status).to.equal(201);
    const foreign = await client.registerValidationTarget({
      organization_id: other.organization.id,
      url: `${receiver.url}/foreign`,
      signature_verification: "disabled",
    });
    const described = await client.describeValidationTargets({
      organization_id: team.organization.id,
      target_ids: [registered.target_id, webhook.body.data.id, foreign.target_id, randomUUID()],
    });
    const byId = new Map(described.targets.map((target) => [target.target_id, target]));
    expect([...byId.keys()].sort()).to.deep.equal([registered.target_id, webhook.body.data.id].sort());
    expect(byId.get(registered.target_id)).to.deep.include({
      url: `${receiver.url}/validate?token=s3cret`,
      masked_url: `${receiver.url}/validate`,
      signature_verification: "disabled",
    });
    expect(byId.get(webhook.body.data.id)).to.deep.include({ url: `${receiver.url}/legacy`, signature_verification: "disabled" });
    const malformed = await client.describeValidationTargets({ organization_id: "nope", target_ids: [] }).then(
      () => undefined,
      (failure: Error) => failure,
    );
    expect(malformed?.message).to.include("organization_id");
  });

  it("a deprecated validation webhook is called by its id; an id that names nothing, or another organization's target, falls back to the lookup", async () => {
    // An organization of its own: no validation webhook of another test applies to its queues.
    const team = await harness.team([]);
    const legacy = await harness.receiver();
    legacy.respondWith(() => ({ body: [{ key: "invoice_id", value: "BY-WEBHOOK-ID" }] }));
    const webhook = await harness.createWebhook(team.owner, {
      url: `${legacy.url}/v`,
      entity_type: "organization",
      entity_id: team.organization.id,
      type: "document_validation",
    });
    const inTeam = harness.hierarchy(team.organization.id);
    const byWebhook = await client.validate(request(inTeam, { target_id: webhook.id }));
    expect(byWebhook.outcome, byWebhook.reason).to.equal("ok");
    expect(answerOf(byWebhook).replacements).to.deep.equal([{ key: "invoice_id", value: "BY-WEBHOOK-ID" }]);

    // Another organization's target is none for this document: its own validators (none here) decide.
    const stranger = await harness.team([]);
    const foreign = await harness.receiver();
    const foreignTarget = (
      await client.registerValidationTarget({
        organization_id: team.organization.id,
        url: `${foreign.url}/v`,
        signature_verification: "disabled",
      })
    ).target_id;
    const elsewhere = harness.hierarchy(stranger.organization.id);
    expect((await client.validate(request(elsewhere, { target_id: foreignTarget }))).outcome).to.equal("no_validator");
    expect((await client.validate(request(elsewhere, { target_id: randomUUID() }))).outcome).to.equal("no_validator");
    expect(foreign.requests).to.have.lengthOf(0);
  });

  it("a malformed request is INVALID_ARGUMENT naming the bad fields", async () => {
    const at = harness.hierarchy(organizationId);
    const error = await client.validate(request(at, { type: "document_status_changed", annotations_json: "{" })).then(
      () => undefined,
      (failure: Error) => failure,
    );
    expect(error?.message).to.include("type").and.include("annotations_json");
  });

  it("labels its gRPC server series with the docex service and, apart, the gRPC service", async () => {
    await client.validate(request(harness.hierarchy(organizationId)));
    const line = (await metricsText())
      .split("\n")
      .find((candidate) => candidate.startsWith("grpc_server_handling_seconds_count{") && candidate.includes('method="Validate"'));
    expect(line).to.be.a("string");
    expect(line).to.include('service="webhook"').and.include('grpc_service="docex.webhook.v1.Webhook"');
  });

  it("records the latency of each call by type and outcome", async () => {
    const metrics = await metricsText();
    for (const outcome of ["ok", "no_validator", "unavailable", "rejected"]) {
      const count = metricValue(metrics, "webhook_validation_duration_seconds_count", { type: "document_validation", outcome });
      expect(count, outcome).to.be.above(0);
    }
  });
});
