import { ANY_SERVICE, createLogger, GrpcServer, Metrics } from "@docex/kit";
import { type ValidateResponse, type WebhookHandlers, webhookService } from "@docex/protos";
import { testGrpcIdentity } from "@docex/testkit";
import { expect } from "chai";
import { type WebhookValidator, webhookValidator } from "../src/clients/webhook.js";
import type { StoredDocument } from "../src/domain/records.js";
import { type KnownValidators, NOTE_SETTLES_MS, type ValidationCall, type ValidatorKnowledge } from "../src/domain/validation.js";

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

/** Projections as a test sets them, recording which notes the client forgot. */
class Projections implements KnownValidators {
  knowledge: ValidatorKnowledge | Error = { seeded: true, failurePolicy: "allow", notedAt: undefined };
  readonly forgotten: number[] = [];
  lookups = 0;
  async of(): Promise<ValidatorKnowledge> {
    this.lookups += 1;
    if (this.knowledge instanceof Error) throw this.knowledge;
    return this.knowledge;
  }
  async forgetNotes(_type: string, _scope: unknown, notedBefore: number): Promise<void> {
    this.forgotten.push(notedBefore);
  }
}

describe("the document service's client of Validate (the webhook service played by a gRPC double)", () => {
  let server: GrpcServer;
  let client: WebhookValidator;
  const projections = new Projections();
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
      async ListValidators() {
        return { validators: [], more: false };
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
    projections.knowledge = { seeded: true, failurePolicy: "allow", notedAt: undefined };
    projections.forgotten.length = 0;
    projections.lookups = 0;
  });

  it("asks nothing where the seeded projections show no validator and nothing was noted; asks where they cannot rule one out", async () => {
    projections.knowledge = { seeded: true, failurePolicy: undefined, notedAt: undefined };
    expect(await client.validate(call(queueA))).to.deep.equal({ outcome: "no_validator" });
    expect(asked).to.deep.equal([]);

    for (const knowledge of [
      { seeded: false, failurePolicy: undefined, notedAt: undefined },
      { seeded: true, failurePolicy: undefined, notedAt: Date.now() },
      { seeded: true, failurePolicy: "block" as const, notedAt: undefined },
      new Error("the projections cannot be read"),
    ]) {
      projections.knowledge = knowledge;
      expect(await client.validate(call(queueA))).to.deep.equal({ outcome: "no_validator" });
    }
    expect(asked).to.have.lengthOf(4);
  });

  it("a queue's own link names its target in the call, and its failure policy decides what a failure comes to", async () => {
    const targetId = "8d2e3f4a-5b6c-4d7e-9f8a-0b1c2d3e4f5a";
    projections.knowledge = { seeded: true, failurePolicy: "block", link: { targetId, failurePolicy: "block" }, notedAt: undefined };
    reply = answer({ outcome: "rejected", reason: "its answer is not JSON", failure_policy: "allow" });
    expect(await client.validate(call(queueA))).to.deep.equal({
      outcome: "rejected",
      reason: "its answer is not JSON",
      failurePolicy: "block",
    });
    expect(targets).to.deep.equal([targetId]);
    // No link: the webhook service looks up a validation webhook of the deprecated API, whose policy is its word.
    projections.knowledge = { seeded: true, failurePolicy: "allow", link: undefined, notedAt: undefined };
    await client.validate(call(queueA));
    expect(targets).to.deep.equal([targetId, ""]);
  });

  it("a note is forgotten only when a call made long after it finds no validator", async () => {
    projections.knowledge = { seeded: true, failurePolicy: undefined, notedAt: Date.now() - 5_000 };
    const before = Date.now();
    await client.validate(call(queueA));
    expect(projections.forgotten).to.have.lengthOf(1);
    // Only notes made NOTE_SETTLES_MS before the call: a fresher one (this one) stays.
    expect(projections.forgotten[0]).to.be.within(before - NOTE_SETTLES_MS - 1, Date.now() - NOTE_SETTLES_MS);
    projections.knowledge = { seeded: true, failurePolicy: "allow", notedAt: Date.now() - 120_000 };
    await client.validate(call(queueA));
    expect(projections.forgotten, "a validator the projections show keeps its note until its event").to.have.lengthOf(1);
  });

  it("a queue whose link the webhook service reports open gets the same answer without a call until a trial call is due", async () => {
    reply = answer({
      outcome: "unavailable",
      reason: "it kept failing and is not called for a while (circuit breaker open)",
      failure_policy: "block",
      link_open_for_ms: 300,
    });
    const expected = {
      outcome: "unavailable",
      reason: "it kept failing and is not called for a while (circuit breaker open)",
      failurePolicy: "block",
    };
    expect(await client.validate(call(queueA))).to.deep.equal(expected);
    expect(await client.validate(call(queueA))).to.deep.equal(expected);
    expect(await client.validate({ ...call(queueA), document: documentOf(queueA, "9c8b7a6f-5e4d-4c3b-8a29-1f0e9d8c7b6a") })).to.deep.equal(
      expected,
    );
    expect(asked, "asked once for the queue").to.deep.equal([queueA]);
    await client.validate(call(queueB));
    expect(asked, "another queue is asked").to.deep.equal([queueA, queueB]);

    await new Promise((resolve) => setTimeout(resolve, 350));
    reply = answer({ outcome: "no_validator" });
    expect(await client.validate(call(queueA))).to.deep.equal({ outcome: "no_validator" });
    expect(asked, "asked again once the breaker lets a trial through").to.deep.equal([queueA, queueB, queueA]);
  });

  it("other unavailable answers (a validation webhook's open breaker, a timeout) are asked again every time", async () => {
    reply = answer({ outcome: "unavailable", reason: "no answer within 200 ms", link_open_for_ms: 0 });
    await client.validate(call(queueA));
    await client.validate(call(queueA));
    expect(asked).to.deep.equal([queueA, queueA]);
  });
});
