import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { openDatabase, type Sql } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import type { RunningService } from "@docex/kit/runtime";
import { dropDatabase, eventually, freePort, RecordingReceiver, TestIssuer, testServiceConfig, UserDirectoryStub } from "@docex/testkit";
import { startWebhookService, configSchema as webhookConfigSchema } from "@docex/webhook";
import { expect } from "chai";
import { documentFixture, Harness, type MembershipBackend, UserApi } from "./support/harness.js";
import { startRealMembership } from "./support/real-membership.js";

interface Message {
  key: string | null;
  message: string;
  severity: string;
}

const sign = (key: string, body: string) => createHmac("sha256", Buffer.from(key, "utf8")).update(body).digest("hex");

const LINE_ITEMS = {
  key: "line_items",
  value: "",
  rows: [
    { activity: { value: "Consulting" }, total_incl_tax: { value: "100.00" } },
    { activity: { value: "Travel" }, total_incl_tax: { value: "21.00" } },
  ],
};

describe("external validation end to end: document, webhook and membership services in-process, receivers on 127.0.0.1", function () {
  this.timeout(60_000);
  const receivers: RecordingReceiver[] = [];
  let issuer: TestIssuer;
  let membership: MembershipBackend & { url: string };
  let webhook: RunningService;
  let webhookStopped = false;
  let webhookDatabase: string;
  let h: Harness<MembershipBackend>;
  let owner: UserApi;
  let organizationId: string;
  let workspaceId: string;
  let documentGrpcPort: number;
  /** The document service's own database, for what only it shows (its projections of the webhook service's validators). */
  let documentDatabase: Sql;
  const documentRows = <T extends object>(text: string, bind: unknown[] = []) => documentDatabase.rows<T>(text, bind);
  /** Edits (document_validation) that the document service did not ask the webhook service about, for this reason. */
  const skipped = async (reason: "no_validator" = "no_validator") => {
    const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
    const line = metrics
      .split("\n")
      .find(
        (candidate) =>
          candidate.startsWith("document_validation_skipped_total{") &&
          candidate.includes('type="document_validation"') &&
          candidate.includes(`reason="${reason}"`),
      );
    if (!line) throw new Error(`document_validation_skipped_total{reason="${reason}"} is not on /metrics`);
    return Number(line.split(" ").at(-1));
  };

  /** Every gRPC call the webhook server has handled, whatever its method or outcome (its grpc_server_handling_seconds). */
  const webhookGrpcCalls = async () => {
    const metrics = await (await fetch(`http://127.0.0.1:${webhook.httpPort}/metrics`)).text();
    return metrics
      .split("\n")
      .filter((line) => line.startsWith("grpc_server_handling_seconds_count{") && line.includes('grpc_service="docex.webhook.v1.Webhook"'))
      .reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
  };

  const webhookCall = async (method: string, path: string, body?: unknown) => {
    const reply = await new UserApi(`http://127.0.0.1:${webhook.httpPort}`, issuer, owner.userId).call(method, path, body);
    if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  };

  const receiver = async () => {
    const started = await RecordingReceiver.start();
    receivers.push(started);
    return started;
  };

  /** A queue of the default schema whose link of `type` points at a fresh receiver. */
  async function linkedQueue(options: { type?: string; signed?: boolean; failurePolicy?: "allow" | "block" } = {}) {
    const queue = await owner.post("/queues", { workspace_id: workspaceId, name: `Invoices ${randomBytes(3).toString("hex")}` });
    const queueId: string = queue.body.data.id;
    const validator = await receiver();
    const saved = await owner.post(`/queues/${queueId}/external-validation-links`, {
      url: `${validator.url}/validate`,
      type: options.type ?? "document_validation",
      signature_verification: options.signed ? "enabled" : "disabled",
      ...(options.failurePolicy ? { failure_policy: options.failurePolicy } : {}),
    });
    if (saved.status !== 201) throw new Error(`link: ${saved.status} ${JSON.stringify(saved.body)}`);
    return { queueId, validator };
  }

  /** A document of the queue, extracted (to_validate), with a line_items table of two rows. */
  async function extractedDocument(queueId: string): Promise<string> {
    const id = await documentFixture(owner, queueId);
    const extraction = await owner.post(`/documents/${id}/extraction`, {
      annotations: [{ key: "invoice_id", value: "INV-1" }, { key: "total_due", value: "121.00" }, LINE_ITEMS],
      confidence: 95,
    });
    if (extraction.status !== 200) throw new Error(`extraction: ${extraction.status}`);
    return id;
  }

  const edit = (id: string, annotations: unknown[]) => owner.patch(`/documents/${id}/annotations`, { annotations });
  const fieldValue = (document: { annotations: Array<{ key: string; value: string }> }, key: string) =>
    document.annotations.find((annotation) => annotation.key === key)?.value;
  const warnings = (document: { messages: Message[] }) => document.messages.filter((message) => message.severity === "warning");

  before(async () => {
    issuer = await TestIssuer.start();
    membership = await startRealMembership(issuer, new UserDirectoryStub());
    // The document service's gRPC port is chosen first: the webhook service asks it to resolve entities.
    documentGrpcPort = await freePort();
    const webhookConfig = testServiceConfig(
      "webhook",
      {
        AUTH_JWKS_URL: issuer.jwksUri,
        MEMBERSHIP_GRPC_ADDR: membership.address,
        DOCUMENT_GRPC_ADDR: `127.0.0.1:${documentGrpcPort}`,
        WEBHOOK_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
        WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
        WEBHOOK_BREAKER_RESET_MS: 60_000,
        INITIAL_VALIDATION_TIMEOUT_MS: 1_000,
      },
      webhookConfigSchema,
    );
    webhookDatabase = webhookConfig.DATABASE_NAME;
    webhook = await startWebhookService(webhookConfig);
    h = await Harness.start({
      membership,
      issuer,
      permissionCacheMs: 30_000,
      webhookAddress: `127.0.0.1:${webhook.grpcPort}`,
      env: { GRPC_PORT: documentGrpcPort, INITIAL_VALIDATION_TIMEOUT_MS: 1_000 },
    });
    owner = h.as(randomUUID());
    const url = new URL(h.config.DATABASE_URL);
    url.pathname = `/${h.config.DATABASE_NAME}`;
    documentDatabase = await openDatabase(url.toString(), { logger: createLogger("document-test", "silent") });
    const created = await new UserApi(membership.url, issuer, owner.userId).post("/organizations", {
      name: `Validators ${randomBytes(3).toString("hex")}`,
    });
    organizationId = created.body.data.id;
    const workspace = await eventually(async () => {
      const reply = await owner.post("/workspaces", { organization_id: organizationId, name: "Payables" });
      return reply.status === 201 ? reply : undefined;
    });
    workspaceId = workspace.body.data.id;
  });

  after(async () => {
    await documentDatabase?.close();
    await h?.stop();
    if (!webhookStopped) await webhook?.stop();
    await dropDatabase(webhookDatabase);
    await Promise.all(receivers.map((started) => started.stop()));
  });

  it("the first validated edit after a fresh start gets the receiver's answer: the channels it needs were warm before the start ended", async () => {
    const readiness = (await (await fetch(`${h.baseUrl}/readyz`)).json()) as { checks: Record<string, string> };
    expect(readiness.checks).to.include({ grpc_channels: "ok", postgres_pool: "ok" });
    const { queueId, validator } = await linkedQueue();
    const id = await extractedDocument(queueId);
    validator.respondWith(() => ({ body: [{ key: "invoice_id", value: "INV-FIRST" }] }));
    const started = performance.now();
    const reply = await edit(id, [{ key: "invoice_id", value: "inv first" }]);
    const elapsedMs = performance.now() - started;
    expect(reply.status).to.equal(200);
    expect(validator.requests, "calls the receiver got").to.have.length(1);
    expect(fieldValue(reply.body.data, "invoice_id"), `the first edit took ${Math.round(elapsedMs)} ms`).to.equal("INV-FIRST");
    expect(reply.body.data.messages).to.deep.equal([]);
  });

  it("applies an answer of the array form: the PATCH answers with the replaced values, and the receiver got the spec's payload", async () => {
    const { queueId, validator } = await linkedQueue();
    const id = await extractedDocument(queueId);
    validator.respondWith(() => ({ body: [{ key: "invoice_id", value: "INV-0001" }] }));
    const reply = await edit(id, [{ key: "invoice_id", value: "inv 1" }]);
    expect(reply.status).to.equal(200);
    expect(fieldValue(reply.body.data, "invoice_id")).to.equal("INV-0001");
    expect(reply.body.data.messages).to.deep.equal([]);
    expect(fieldValue((await owner.get(`/documents/${id}`)).body.data, "invoice_id")).to.equal("INV-0001");

    const sent = validator.requests.at(-1)!.body as Record<string, unknown>;
    expect(sent).to.include({ document_id: id, queue_id: queueId, user_id: owner.userId, webhook_event: "document_validation" });
    expect((sent.previous_annotations as Array<{ key: string; value: string }>).find((a) => a.key === "invoice_id")?.value).to.equal(
      "INV-1",
    );
    expect((sent.annotations as Array<{ key: string; value: string }>).find((a) => a.key === "invoice_id")?.value).to.equal("inv 1");
  });

  it("applies an answer of the object form: values, messages of each severity, table cells by rowIndex, options by field", async () => {
    const { queueId, validator } = await linkedQueue();
    const id = await extractedDocument(queueId);
    validator.respondWith(() => ({
      body: {
        results: [
          { key: "total_due", value: "121.50", validationResults: [{ message: "Rounded to the order's total", severity: "info" }] },
          {
            key: "line_items",
            results: [{ key: "total_incl_tax", rowIndex: 1, value: "21.50" }],
            validationResults: [{ message: "Travel costs look high", severity: "warning" }],
          },
          { key: "supplier_register_id", options: [{ label: "ACME s.r.o.", value: "12345678" }] },
          { key: "iban", validationResults: [{ message: "IBAN is not the supplier's", severity: "error" }] },
        ],
      },
    }));
    const reply = await edit(id, [{ key: "iban", value: "CZ6508000000192000145399" }]);
    expect(reply.status).to.equal(200);
    const document = reply.body.data;
    expect(fieldValue(document, "total_due")).to.equal("121.50");
    expect(document.annotations.find((a: { key: string }) => a.key === "total_due").numericValue).to.equal(121.5);
    const table = document.annotations.find((a: { key: string }) => a.key === "line_items");
    expect(table.rows[1].total_incl_tax).to.deep.equal({ value: "21.50", numericValue: 21.5 });
    expect(table.rows[0].total_incl_tax.value).to.equal("100.00");
    expect(document.options).to.deep.equal({ supplier_register_id: [{ label: "ACME s.r.o.", value: "12345678" }] });
    expect(document.messages).to.deep.equal([
      { key: "total_due", message: "Rounded to the order's total", severity: "info" },
      { key: "line_items", message: "Travel costs look high", severity: "warning" },
      { key: "iban", message: "IBAN is not the supplier's", severity: "error" },
    ]);
  });

  it("an error message blocks ready_to_export (409 naming it) and clears when the next answer has none", async () => {
    const { queueId, validator } = await linkedQueue();
    const id = await extractedDocument(queueId);
    validator.respondWith(() => ({
      body: { results: [{ key: "total_due", validationResults: [{ message: "Total differs from the order", severity: "error" }] }] },
    }));
    await edit(id, [{ key: "total_due", value: "120.00" }]);
    const blocked = await owner.post(`/documents/${id}/status`, { status: "ready_to_export" });
    expect(blocked.status).to.equal(409);
    expect(blocked.body.code).to.equal("blocked_by_error_messages");
    expect(blocked.body.messages).to.deep.equal([{ key: "total_due", message: "Total differs from the order", severity: "error" }]);

    validator.respondWith(() => ({ body: { results: [{ key: "total_due", validationResults: [] }] } }));
    const fixed = await edit(id, [{ key: "total_due", value: "121.00" }]);
    expect(fixed.body.data.messages).to.deep.equal([]);
    expect((await owner.post(`/documents/${id}/status`, { status: "ready_to_export" })).status).to.equal(200);
  });

  it("a validator that fails keeps the last answer's error (the document stays blocked) and adds a warning saying why", async () => {
    const { queueId, validator } = await linkedQueue();
    const id = await extractedDocument(queueId);
    validator.respondWith(() => ({
      body: { results: [{ key: "iban", validationResults: [{ message: "Unknown IBAN", severity: "error" }] }] },
    }));
    await edit(id, [{ key: "iban", value: "CZ1" }]);
    validator.respondWith(() => ({ status: 500, body: "oops" }));
    const reply = await edit(id, [{ key: "iban", value: "CZ2" }]);
    expect(reply.status).to.equal(200);
    expect(fieldValue(reply.body.data, "iban")).to.equal("CZ2");
    expect(reply.body.data.messages).to.deep.equal([
      { key: "iban", message: "Unknown IBAN", severity: "error" },
      {
        key: null,
        message: "External validation was unavailable (it answered HTTP 500); the edit was saved without it.",
        severity: "warning",
      },
    ]);
    expect((await owner.post(`/documents/${id}/status`, { status: "ready_to_export" })).status).to.equal(409);
  });

  it("failure policy block: an unavailable validator leaves an error, so the document cannot be exported until validation succeeds", async () => {
    const { queueId, validator } = await linkedQueue({ failurePolicy: "block" });
    const id = await extractedDocument(queueId);
    validator.respondWith(() => ({ status: 503, body: "down" }));
    const reply = await edit(id, [{ key: "invoice_id", value: "B-1" }]);
    expect(reply.status).to.equal(200);
    expect(fieldValue(reply.body.data, "invoice_id")).to.equal("B-1");
    expect(reply.body.data.messages).to.deep.equal([
      {
        key: null,
        message:
          "External validation was unavailable (it answered HTTP 503); the edit was saved without it. " +
          "The queue requires external validation: the document cannot be exported until it succeeds.",
        severity: "error",
      },
    ]);
    const blocked = await owner.post(`/documents/${id}/status`, { status: "ready_to_export" });
    expect(blocked.status).to.equal(409);
    expect(blocked.body.code).to.equal("blocked_by_error_messages");

    validator.respondWith(() => ({ body: { results: [] } }));
    const validated = await edit(id, [{ key: "invoice_id", value: "B-2" }]);
    expect(validated.body.data.messages).to.deep.equal([]);
    expect((await owner.post(`/documents/${id}/status`, { status: "ready_to_export" })).status).to.equal(200);
  });

  it("failure policy allow (the default): the same failure leaves a warning and the document can move on", async () => {
    const { queueId, validator } = await linkedQueue({ failurePolicy: "allow" });
    const id = await extractedDocument(queueId);
    validator.respondWith(() => ({ status: 503, body: "down" }));
    const reply = await edit(id, [{ key: "invoice_id", value: "A-1" }]);
    expect(reply.body.data.messages.map((message: Message) => message.severity)).to.deep.equal(["warning"]);
    expect((await owner.post(`/documents/${id}/status`, { status: "ready_to_export" })).status).to.equal(200);
  });

  it("with signing on, an unsigned or wrongly signed answer is rejected: the edit is saved, nothing of the answer applies, a warning says why", async () => {
    const key = (await webhookCall("POST", `/organizations/${organizationId}/webhook-signing-key`)).data.key as string;
    const { queueId, validator } = await linkedQueue({ signed: true });
    const id = await extractedDocument(queueId);
    const body = JSON.stringify([{ key: "invoice_id", value: "FROM-VALIDATOR" }]);

    validator.respondWith(() => ({ body }));
    const unsigned = await edit(id, [{ key: "invoice_id", value: "A" }]);
    expect(fieldValue(unsigned.body.data, "invoice_id")).to.equal("A");
    expect(warnings(unsigned.body.data).map((m) => m.message)).to.deep.equal([
      "External validation's answer was rejected (its answer has no x-service-signature, which signing requires); the edit was saved without it.",
    ]);

    validator.respondWith(() => ({ body, headers: { "x-service-signature": sign("f".repeat(64), body) } }));
    const wrong = await edit(id, [{ key: "invoice_id", value: "B" }]);
    expect(fieldValue(wrong.body.data, "invoice_id")).to.equal("B");
    expect(warnings(wrong.body.data)[0]!.message).to.include("does not match");

    validator.respondWith((request) => {
      expect(request.headers["x-service-signature"]).to.equal(sign(key, request.rawBody));
      return { body, headers: { "x-service-signature": sign(key, body) } };
    });
    const signed = await edit(id, [{ key: "invoice_id", value: "C" }]);
    expect(fieldValue(signed.body.data, "invoice_id")).to.equal("FROM-VALIDATOR");
    expect(signed.body.data.messages).to.deep.equal([]);
  });

  it("with signing off, an unsigned answer is accepted, signing key or not", async () => {
    const { queueId, validator } = await linkedQueue({ signed: false });
    const id = await extractedDocument(queueId);
    validator.respondWith(() => ({ body: [{ key: "invoice_id", value: "UNSIGNED-OK" }] }));
    expect(fieldValue((await edit(id, [{ key: "invoice_id", value: "x" }])).body.data, "invoice_id")).to.equal("UNSIGNED-OK");
  });

  it("a receiver sleeping 2 s does not hold the user: the PATCH answers well under the budget plus overhead, saved, with a warning", async () => {
    const { queueId, validator } = await linkedQueue();
    const id = await extractedDocument(queueId);
    validator.respondWith(() => ({ body: [{ key: "invoice_id", value: "TOO-LATE" }], delayMs: 2_000 }));
    const started = performance.now();
    const reply = await edit(id, [{ key: "invoice_id", value: "slow" }]);
    const elapsed = performance.now() - started;
    expect(reply.status).to.equal(200);
    expect(elapsed).to.be.below(600);
    expect(fieldValue(reply.body.data, "invoice_id")).to.equal("slow");
    // Which deadline fires first — the receiver's 200 ms or the gRPC call's slightly longer one — depends
    // on the machine's load; either way the edit is saved with the same kind of warning.
    expect(warnings(reply.body.data)[0]!.message).to.match(
      /^External validation was unavailable \((no answer within 200 ms|the validation service did not answer in time)\); the edit was saved without it\.$/,
    );
  });

  it("after a few failures the link's breaker opens: the PATCH answers at once with a warning, and the receiver is not called", async () => {
    const { queueId, validator } = await linkedQueue();
    const id = await extractedDocument(queueId);
    validator.respondWith(() => ({ body: [], delayMs: 1_000 }));
    for (let i = 0; i < 5; i++) await edit(id, [{ key: "invoice_id", value: `attempt ${i}` }]);
    const called = validator.requests.length;
    const started = performance.now();
    const reply = await edit(id, [{ key: "invoice_id", value: "breaker open" }]);
    // Not a moment of the 200 ms budget is waited for.
    expect(performance.now() - started).to.be.below(200);
    expect(validator.requests.length).to.equal(called);
    expect(fieldValue(reply.body.data, "invoice_id")).to.equal("breaker open");
    expect(warnings(reply.body.data)[0]!.message).to.include("circuit breaker open");

    // Another document of the queue gets the same answer at once: the breaker is the link's target's.
    const other = await extractedDocument(queueId);
    const again = await edit(other, [{ key: "invoice_id", value: "open for the queue" }]);
    expect(fieldValue(again.body.data, "invoice_id")).to.equal("open for the queue");
    expect(warnings(again.body.data).map((warning) => warning.message)).to.deep.equal([warnings(reply.body.data)[0]!.message]);
    expect(validator.requests.length).to.equal(called);
  });

  it("malformed JSON and an answer over 1 MiB are rejected with a warning; the edit is saved", async () => {
    const { queueId, validator } = await linkedQueue();
    const id = await extractedDocument(queueId);
    validator.respondWith(() => ({ body: "[{" }));
    const malformed = await edit(id, [{ key: "invoice_id", value: "m" }]);
    expect(fieldValue(malformed.body.data, "invoice_id")).to.equal("m");
    expect(warnings(malformed.body.data)[0]!.message).to.equal(
      "External validation's answer was rejected (the answer is not JSON); the edit was saved without it.",
    );

    validator.respondWith(() => ({ body: JSON.stringify([{ key: "invoice_id", value: "x".repeat(1024 * 1024) }]) }));
    const oversized = await edit(id, [{ key: "invoice_id", value: "o" }]);
    expect(fieldValue(oversized.body.data, "invoice_id")).to.equal("o");
    expect(warnings(oversized.body.data)[0]!.message).to.include("larger than 1 MiB");
  });

  it("parts of an answer naming an unknown field, a missing row or an impossible value are ignored with a warning; the rest applies", async () => {
    const { queueId, validator } = await linkedQueue();
    const id = await extractedDocument(queueId);
    validator.respondWith(() => ({
      body: {
        results: [
          { key: "vat_number", value: "CZ123", validationResults: [{ message: "VAT number missing", severity: "error" }] },
          { key: "line_items", results: [{ key: "total_incl_tax", rowIndex: 7, value: "1.00" }] },
          { key: "total_due", value: "a lot" },
          { key: "invoice_id", value: "INV-9", options: [{ label: "x", value: "y" }] },
          { key: "ghost", options: [{ label: "x", value: "y" }] },
        ],
      },
    }));
    const reply = await edit(id, [{ key: "invoice_id", value: "inv 9" }]);
    expect(reply.status).to.equal(200);
    const document = reply.body.data;
    expect(fieldValue(document, "invoice_id")).to.equal("INV-9");
    expect(fieldValue(document, "total_due")).to.equal("121.00");
    expect(document.options).to.deep.equal({ invoice_id: [{ label: "x", value: "y" }] });
    expect(document.messages).to.deep.equal([
      { key: null, message: "vat_number: VAT number missing", severity: "error" },
      {
        key: null,
        message:
          'Parts of the external validation\'s answer were ignored: field "vat_number" does not exist; total_due: "a lot" is not a number; line_items has no row 7; options for field "ghost", which does not exist.',
        severity: "warning",
      },
    ]);
  });

  it("a late answer never overwrites a newer edit made while it was on its way", async () => {
    const { queueId, validator } = await linkedQueue();
    const id = await extractedDocument(queueId);
    const colleague = owner;
    validator.respondWith((request) => {
      const annotations = (request.body as { annotations: Array<{ key: string; value: string }> }).annotations;
      const iban = annotations.find((annotation) => annotation.key === "iban")?.value;
      return iban === "first" ? { body: [{ key: "iban", value: "STALE" }], delayMs: 120 } : { body: [] };
    });
    const first = edit(id, [{ key: "iban", value: "first" }]);
    await validator.waitForRequests(validator.requests.length + 1);
    const newer = await colleague.patch(`/documents/${id}/annotations`, { annotations: [{ key: "iban", value: "newer" }] });
    expect(fieldValue(newer.body.data, "iban")).to.equal("newer");
    expect(fieldValue((await first).body.data, "iban")).to.equal("newer");
    expect(fieldValue((await owner.get(`/documents/${id}`)).body.data, "iban")).to.equal("newer");
  });

  it("without a validator nothing changes and no warning appears", async () => {
    const queue = await owner.post("/queues", { workspace_id: workspaceId, name: `Plain ${randomBytes(3).toString("hex")}` });
    const id = await extractedDocument(queue.body.data.id);
    const reply = await edit(id, [{ key: "invoice_id", value: "plain" }]);
    expect(reply.status).to.equal(200);
    expect(fieldValue(reply.body.data, "invoice_id")).to.equal("plain");
    expect(reply.body.data.messages).to.deep.equal([]);
  });

  it("a PATCH of annotations, or of the queue, in a queue without a validator makes no gRPC call to the webhook service (its own call counter) and no lookup of validators", async () => {
    const queue = await owner.post("/queues", { workspace_id: workspaceId, name: `Uncalled ${randomBytes(3).toString("hex")}` });
    const queueId: string = queue.body.data.id;
    const id = await extractedDocument(queueId);
    // The first edit reads the queue, and its validators with it, into the cache.
    await edit(id, [{ key: "invoice_id", value: "uncalled first" }]);
    const before = await webhookGrpcCalls();
    const skippedBefore = await skipped();
    // Without the tables of validators, any lookup fails, and a failed lookup asks the webhook service (counted).
    await documentRows("ALTER TABLE queue_validation_links RENAME TO queue_validation_links_hidden");
    await documentRows("ALTER TABLE validation_webhooks RENAME TO validation_webhooks_hidden");
    try {
      for (let i = 0; i < 5; i++) {
        const reply = await edit(id, [{ key: "invoice_id", value: `uncalled ${i}` }]);
        expect(reply.status).to.equal(200);
        expect(reply.body.data.messages).to.deep.equal([]);
      }
    } finally {
      await documentRows("ALTER TABLE queue_validation_links_hidden RENAME TO queue_validation_links");
      await documentRows("ALTER TABLE validation_webhooks_hidden RENAME TO validation_webhooks");
    }
    expect(await skipped(), "edits answered no_validator from the cached queue").to.equal(skippedBefore + 5);
    expect((await owner.patch(`/queues/${queueId}`, { name: `Renamed ${randomBytes(3).toString("hex")}` })).status).to.equal(200);
    expect(await webhookGrpcCalls(), "gRPC calls the webhook server handled meanwhile").to.equal(before);

    // The counter does count: an edit in a queue with a validator is one Validate call.
    const linked = await linkedQueue();
    const validated = await extractedDocument(linked.queueId);
    const beforeValidated = await webhookGrpcCalls();
    await edit(validated, [{ key: "invoice_id", value: "counted" }]);
    expect(await webhookGrpcCalls()).to.equal(beforeValidated + 1);
  });

  it("initial validation runs after extraction (user_id null) and its answer is applied", async () => {
    const { queueId, validator } = await linkedQueue({ type: "initial_document_validation" });
    validator.respondWith(() => ({
      body: { results: [{ key: "invoice_id", value: "INV-INITIAL", validationResults: [{ message: "Checked", severity: "info" }] }] },
      delayMs: 300,
    }));
    const id = await extractedDocument(queueId);
    const [sent] = await validator.waitForRequests(1);
    expect(sent!.body).to.deep.include({
      document_id: id,
      user_id: null,
      previous_annotations: [],
      webhook_event: "initial_document_validation",
    });
    const document = await eventually(async () => {
      const read = (await owner.get(`/documents/${id}`)).body.data;
      return fieldValue(read, "invoice_id") === "INV-INITIAL" ? read : undefined;
    });
    expect(document.messages).to.deep.equal([{ key: "invoice_id", message: "Checked", severity: "info" }]);
    expect(document.status).to.equal("to_validate");
  });

  it("initial validation is tried again when the receiver fails, with a warning meanwhile that its answer then replaces", async () => {
    const { queueId, validator } = await linkedQueue({ type: "initial_document_validation" });
    let calls = 0;
    validator.respondWith(() => {
      calls += 1;
      return calls === 1 ? { status: 502 } : { body: [{ key: "invoice_id", value: "INV-RETRIED" }] };
    });
    const id = await extractedDocument(queueId);
    const warned = await eventually(async () => {
      const read = (await owner.get(`/documents/${id}`)).body.data;
      return read.messages.length ? read : undefined;
    });
    expect(warned.messages).to.deep.equal([
      {
        key: null,
        message: "Initial external validation was unavailable (it answered HTTP 502); it will be tried again.",
        severity: "warning",
      },
    ]);
    const answered = await eventually(async () => {
      const read = (await owner.get(`/documents/${id}`)).body.data;
      return fieldValue(read, "invoice_id") === "INV-RETRIED" ? read : undefined;
    });
    expect(answered.messages).to.deep.equal([]);
    expect(validator.requests).to.have.lengthOf(2);
  });

  it("a validation webhook of the deprecated API on an organization is asked at once (the webhook service told this service before answering), and not asked once deleted", async () => {
    const organization = await new UserApi(membership.url, issuer, owner.userId).post("/organizations", {
      name: `Deprecated ${randomBytes(3).toString("hex")}`,
    });
    const otherOrganization: string = organization.body.data.id;
    const workspace = await eventually(async () => {
      const reply = await owner.post("/workspaces", { organization_id: otherOrganization, name: "Legacy" });
      return reply.status === 201 ? reply : undefined;
    });
    const queue = await owner.post("/queues", { workspace_id: workspace.body.data.id, name: "Legacy invoices" });
    const id = await extractedDocument(queue.body.data.id);
    const validator = await receiver();
    validator.respondWith(() => ({ body: [{ key: "invoice_id", value: "FROM-ORG" }] }));
    const created = await webhookCall("POST", "/webhooks", {
      url: `${validator.url}/org`,
      entity_type: "organization",
      entity_id: otherOrganization,
      type: "document_validation",
    });
    const webhookId: string = created.data.id;
    // Right after the answer: the webhook service told this service after its commit, before answering.
    const placed = await documentRows<{ present: boolean }>("SELECT present FROM validation_webhooks WHERE webhook_id = $1", [webhookId]);
    expect(placed).to.deep.equal([{ present: true }]);
    expect(fieldValue((await edit(id, [{ key: "invoice_id", value: "o1" }])).body.data, "invoice_id")).to.equal("FROM-ORG");
    // Named in a failure: whether the receiver was asked, and the warning of an edit saved without its answer.
    const second = await edit(id, [{ key: "invoice_id", value: "o2" }]);
    const seen = `receiver asked ${validator.requests.length} times; messages ${JSON.stringify(second.body.data.messages)}`;
    expect(fieldValue(second.body.data, "invoice_id"), seen).to.equal("FROM-ORG");
    expect(validator.requests).to.have.lengthOf(2);

    await webhookCall("DELETE", `/webhooks/${webhookId}`);
    const removed = await documentRows<{ present: boolean }>("SELECT present FROM validation_webhooks WHERE webhook_id = $1", [webhookId]);
    expect(removed).to.deep.equal([{ present: false }]);
    const before = await skipped();
    expect(fieldValue((await edit(id, [{ key: "invoice_id", value: "o3" }])).body.data, "invoice_id")).to.equal("o3");
    expect(await skipped()).to.equal(before + 1);
    expect(validator.requests).to.have.lengthOf(2);
  });

  it("a document's validation webhook of the deprecated API validates that document only; a queue's own is replaced by the queue's link when one is saved", async () => {
    const queue = await owner.post("/queues", { workspace_id: workspaceId, name: `Own ${randomBytes(3).toString("hex")}` });
    const queueId: string = queue.body.data.id;
    const [mine, other] = [await extractedDocument(queueId), await extractedDocument(queueId)];
    const onDocument = await receiver();
    onDocument.respondWith(() => ({ body: [{ key: "invoice_id", value: "FROM-DOCUMENT" }] }));
    await webhookCall("POST", "/webhooks", {
      url: `${onDocument.url}/d`,
      entity_type: "document",
      entity_id: mine,
      type: "document_validation",
    });
    const onQueue = await receiver();
    onQueue.respondWith(() => ({ body: [{ key: "invoice_id", value: "FROM-QUEUE" }] }));
    const queueHook = await webhookCall("POST", "/webhooks", {
      url: `${onQueue.url}/q`,
      entity_type: "queue",
      entity_id: queueId,
      type: "document_validation",
    });
    expect(fieldValue((await edit(mine, [{ key: "invoice_id", value: "d1" }])).body.data, "invoice_id")).to.equal("FROM-DOCUMENT");
    expect(fieldValue((await edit(other, [{ key: "invoice_id", value: "q1" }])).body.data, "invoice_id")).to.equal("FROM-QUEUE");

    const linked = await receiver();
    linked.respondWith(() => ({ body: [{ key: "invoice_id", value: "FROM-LINK" }] }));
    const saved = await owner.post(`/queues/${queueId}/external-validation-links`, { url: `${linked.url}/l`, type: "document_validation" });
    expect(saved.status, "the queue's webhook was its link: an update").to.equal(200);
    expect(fieldValue((await edit(other, [{ key: "invoice_id", value: "q2" }])).body.data, "invoice_id")).to.equal("FROM-LINK");
    expect(fieldValue((await edit(mine, [{ key: "invoice_id", value: "d2" }])).body.data, "invoice_id")).to.equal("FROM-LINK");
    const gone = await new UserApi(`http://127.0.0.1:${webhook.httpPort}`, issuer, owner.userId).call(
      "GET",
      `/webhooks/${queueHook.data.id}`,
    );
    expect(gone.status, "the replaced webhook is deleted in the webhook service").to.equal(404);
  });

  it("records validation latency by type and outcome, and the webhook client's breaker state", async () => {
    const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
    expect(metrics).to.match(/document_validation_duration_seconds_count\{[^}]*type="document_validation"[^}]*outcome="ok"[^}]*\} [1-9]/);
    expect(metrics).to.match(
      /document_validation_duration_seconds_count\{[^}]*type="document_validation"[^}]*outcome="unavailable"[^}]*\} [1-9]/,
    );
    expect(metrics).to.match(
      /document_validation_duration_seconds_count\{[^}]*type="initial_document_validation"[^}]*outcome="ok"[^}]*\} [1-9]/,
    );
  });

  // Last: it stops the webhook service.
  it("while the webhook service is down, the queue's links decide: no validator says nothing, allow warns, block errs", async () => {
    const plain = await owner.post("/queues", { workspace_id: workspaceId, name: `No validator ${randomBytes(3).toString("hex")}` });
    const withoutLink = await extractedDocument(plain.body.data.id);
    const allow = await extractedDocument((await linkedQueue({ failurePolicy: "allow" })).queueId);
    const blocking = await linkedQueue({ failurePolicy: "block" });
    const block = await extractedDocument(blocking.queueId);
    const removed = await linkedQueue({ failurePolicy: "block" });
    expect((await owner.call("DELETE", `/queues/${removed.queueId}/external-validation-links/document_validation`)).status).to.equal(204);
    const afterRemoval = await extractedDocument(removed.queueId);
    // The links are this service's own configuration: what it shows is what decides.
    const rows = await documentRows<{ queue_id: string; failure_policy: string }>(
      "SELECT queue_id, failure_policy FROM queue_validation_links WHERE queue_id = ANY($1::uuid[])",
      [[blocking.queueId, removed.queueId]],
    );
    expect(rows).to.deep.equal([{ queue_id: blocking.queueId, failure_policy: "block" }]);

    await webhook.stop();
    webhookStopped = true;
    const severities = async (id: string) =>
      (await edit(id, [{ key: "invoice_id", value: `down ${randomBytes(2).toString("hex")}` }])).body.data.messages.map(
        (message: Message) => message.severity,
      );
    expect(await severities(withoutLink)).to.deep.equal([]);
    expect(await severities(afterRemoval)).to.deep.equal([]);
    expect(await severities(allow)).to.deep.equal(["warning"]);
    expect(await severities(block)).to.deep.equal(["error"]);
  });
});
