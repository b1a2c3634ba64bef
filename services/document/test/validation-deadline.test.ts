import { createLogger } from "@docex/kit/logger";
import { Metrics } from "@docex/kit/metrics";
import { freePort, testGrpcIdentity } from "@docex/testkit";
import { expect } from "chai";
import { webhookValidator } from "../src/clients/webhook.js";
import type { StoredDocument } from "../src/domain/records.js";
import {
  ANSWER_RESERVE_MS,
  EditValidation,
  type ExternalValidator,
  type FailurePolicy,
  type ValidationCall,
  type ValidationResult,
} from "../src/domain/validation.js";

const document = {
  id: "3b9f6c1e-2a4d-4e8f-9b0c-1d2e3f4a5b6c",
  queueId: "4c0a7d2f-3b5e-4f90-8c1d-2e3f4a5b6c7d",
  workspaceId: "5d1b8e3a-4c6f-4a01-9d2e-3f4a5b6c7d8e",
  organizationId: "6e2c9f4b-5d7a-4b12-8e3f-4a5b6c7d8e9f",
  annotations: [],
} as unknown as StoredDocument;

/** Records the calls it gets; answers no_validator. */
class RecordingValidator implements ExternalValidator {
  readonly calls: ValidationCall[] = [];
  async validate(call: ValidationCall): Promise<ValidationResult> {
    this.calls.push(call);
    return { outcome: "no_validator" };
  }
}

describe("document_validation's deadline: the budget counts from the request's arrival", () => {
  const edit = (receivedAt: number) => ({
    document,
    previousAnnotations: [],
    annotationSchema: [],
    userId: "7f3d0a5c-6e8b-4c23-9f4a-5b6c7d8e9f0a",
    requestId: "request-1",
    receivedAt,
  });

  it("the validator gets what the work before it left of the budget, less the answer's reserve; the budget itself is what it names", async () => {
    const external = new RecordingValidator();
    let now = 10_000;
    const validation = new EditValidation(external, 200, () => now);
    await validation.validateEdit(edit(10_000 - 40));
    now = 20_000;
    await validation.validateEdit(edit(20_000));
    expect(external.calls.map(({ timeoutMs, deadlineMs }) => ({ timeoutMs, deadlineMs }))).to.deep.equal([
      { timeoutMs: 200, deadlineMs: 200 - 40 - ANSWER_RESERVE_MS },
      { timeoutMs: 200, deadlineMs: 200 - ANSWER_RESERVE_MS },
    ]);
  });

  describe("the webhook service's client, when too little time is left", () => {
    const logger = createLogger("document-test", "silent");
    let policy: FailurePolicy | undefined;
    let validator: ReturnType<typeof webhookValidator>;

    before(async () => {
      // Nothing listens there: a call that was made would fail as "unavailable", not with the reason below.
      validator = webhookValidator(`127.0.0.1:${await freePort()}`, {
        identity: testGrpcIdentity("document"),
        metrics: new Metrics("document-test", { defaultMetrics: false }),
        logger,
        // The document's validator, if any (policy undefined: none): with one, whether to call is the deadline's decision alone.
        validators: { of: async () => (policy ? { targetId: "8d2e3f4a-5b6c-4d7e-9f8a-0b1c2d3e4f5a", failurePolicy: policy } : undefined) },
      });
    });

    after(() => validator.close());

    const call = (deadlineMs: number): ValidationCall => ({
      type: "document_validation",
      document,
      previousAnnotations: [],
      userId: null,
      timeoutMs: 200,
      deadlineMs,
    });

    it("does not call: no link says no validator; a link says unavailable, under its failure policy, naming why", async () => {
      policy = undefined;
      expect(await validator.validate(call(4))).to.deep.equal({ outcome: "no_validator" });
      policy = "block";
      expect(await validator.validate(call(-30))).to.deep.equal({
        outcome: "unavailable",
        reason: "the request's time for validation was spent before it could start",
        failurePolicy: "block",
      });
    });

    it("with time left it calls (here: nobody answers, so the service is unavailable)", async () => {
      policy = "allow";
      const result = await validator.validate(call(150));
      expect(result).to.deep.include({ outcome: "unavailable", failurePolicy: "allow" });
      expect((result as { reason: string }).reason).to.not.equal("the request's time for validation was spent before it could start");
    });
  });
});
