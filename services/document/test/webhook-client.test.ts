import { ANY_SERVICE, GrpcServer } from "@docex/kit/grpc";
import { createLogger } from "@docex/kit/logger";
import { Metrics } from "@docex/kit/metrics";
import { type ValidateResponse, type WebhookHandlers, webhookService } from "@docex/protos";
import { testGrpcIdentity } from "@docex/testkit";
import { expect } from "chai";
import { type WebhookValidator, webhookValidator } from "../src/clients/webhook.js";
import type { StoredDocument } from "../src/domain/records.js";
import type { AppliedValidator, KnownValidators, ValidationCall } from "../src/domain/validation.js";

const ids = {
  organizationId: "6e2c9f4b-5d7a-4b12-8e3f-4a5b6c7d8e9f",
  workspaceId: "5d1b8e3a-4c6f-4a01-9d2e-3f4a5b6c7d8e",
};
const queueA = "4c0a7d2f-3b5e-4f90-8c1d-2e3f4a5b6c7d";
const queueB = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

const documentOf = (queueId: string, id = "3b9f6c1e-2a4d-4e8f-9b0c-1d2e3f4a5b6c") =>
  ({ id, queueId, ...ids, annotations: [] }) as unknown as StoredDocument;

const call = (queueId: string): ValidationCall => ({
  type: "document_validation",
  document: documentOf(queueId),
  previousAnnotations: [],
  userId: null,
  timeoutMs: 200,
});

const answer = (fields: Partial<ValidateResponse>): ValidateResponse => ({
  outcome: "no_validator",
  reason: "",
  answer_json: JSON.stringify({ replacements: [], messages: [], cells: [], options: {} }),
  duration_ms: 0,
  failure_policy: "allow",
  link_open_for_ms: 0,
  ...fields,
});

const TARGET = "8d2e3f4a-5b6c-4d7e-9f8a-0b1c2d3e4f5a";

/** The document's validator as a test sets it (the queue's cached validators in the service). */
class Validators implements KnownValidators {
  applied: AppliedValidator | undefined | Error = { targetId: TARGET, failurePolicy: "allow" };
  async of(): Promise<AppliedValidator | undefined> {
    if (this.applied instanceof Error) throw this.applied;
    return this.applied;
  }
}

describe("the document service's client of Validate (the webhook service played by a gRPC double)", () => {
  let server: GrpcServer;
  let client: WebhookValidator;
  const projections = new Validators();
  let reply: ValidateResponse = answer({});
  let asked: string[] = [];
  let targets: string[] = [];

  before(async () => {
    server = new GrpcServer(createLogger("webhook-double", "silent"), { identity: testGrpcIdentity("webhook") });
    const handlers: WebhookHandlers = {
      async Validate(request) {
        asked.push(request.queue_id);
        targets.push(request.target_id);
        return reply;
      },
      async DeleteValidationWebhook() {
        throw new Error("not used by these tests");
      },
      async DescribeValidationTargets() {
        throw new Error("not used by these tests");
      },
      async RegisterValidationTarget() {
        throw new Error("not used by these tests");
      },
    };
    server.addService(webhookService.definition, webhookService.serviceName, handlers, ANY_SERVICE);
    const port = await server.listen("127.0.0.1", 0);
    client = webhookValidator(`127.0.0.1:${port}`, {
      identity: testGrpcIdentity("document"),
      metrics: new Metrics("document-test", { defaultMetrics: false }),
      logger: createLogger("document-test", "silent"),
      validators: projections,
    });
  });

  after(async () => {
    client.close();
    await server.shutdown(1_000);
  });

  beforeEach(() => {
    asked = [];
    targets = [];
    reply = answer({});
    projections.applied = { targetId: TARGET, failurePolicy: "allow" };
  });

  it("asks nothing where no validator applies; asks where one does, and where it cannot be read (without a target: the webhook service looks)", async () => {
    projections.applied = undefined;
    expect(await client.validate(call(queueA))).to.deep.equal({ outcome: "no_validator" });
    expect(asked).to.deep.equal([]);

    for (const applied of [{ targetId: TARGET, failurePolicy: "block" as const }, new Error("the validators cannot be read")]) {
      projections.applied = applied;
      expect(await client.validate(call(queueA))).to.deep.equal({ outcome: "no_validator" });
    }
    expect(asked).to.have.lengthOf(2);
    expect(targets).to.deep.equal([TARGET, ""]);
  });

  it("the validator names its target in the call, and its failure policy decides what a failure comes to", async () => {
    projections.applied = { targetId: TARGET, failurePolicy: "block" };
    reply = answer({ outcome: "rejected", reason: "its answer is not JSON", failure_policy: "allow" });
    expect(await client.validate(call(queueA))).to.deep.equal({
      outcome: "rejected",
      reason: "its answer is not JSON",
      failurePolicy: "block",
    });
    expect(targets).to.deep.equal([TARGET]);
  });

  it("every edit with a validator is asked, an open breaker's answer too (the webhook service answers it at once)", async () => {
    reply = answer({
      outcome: "unavailable",
      reason: "it kept failing and is not called for a while (circuit breaker open)",
      failure_policy: "block",
      link_open_for_ms: 300,
    });
    projections.applied = { targetId: TARGET, failurePolicy: "block" };
    const expected = {
      outcome: "unavailable",
      reason: "it kept failing and is not called for a while (circuit breaker open)",
      failurePolicy: "block",
    };
    expect(await client.validate(call(queueA))).to.deep.equal(expected);
    expect(await client.validate(call(queueA))).to.deep.equal(expected);
    await client.validate(call(queueB));
    expect(asked).to.deep.equal([queueA, queueA, queueB]);
  });
});
