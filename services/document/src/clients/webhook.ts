import { performance } from "node:perf_hooks";
import { type GrpcIdentity, type Logger, type Metrics, UpstreamError } from "@docex/kit";
import { createWebhookClient } from "@docex/protos";
import { Histogram } from "prom-client";
import { z } from "zod";
import { MESSAGE_SEVERITIES } from "../domain/records.js";
import type { ExternalValidator, ValidationCall, ValidationLinkPolicies, ValidationResult } from "../domain/validation.js";

/**
 * Less time than this left for validation: the call is not made (no receiver answers that fast across two hops),
 * and the result is what the link projection says of an unavailable validator.
 */
export const MIN_VALIDATE_MS = 10;

/** answer_json of protos/webhook.proto. */
const answerSchema = z.object({
  replacements: z.array(z.object({ key: z.string(), value: z.string() })),
  messages: z.array(z.object({ key: z.string().nullable(), message: z.string(), severity: z.enum(MESSAGE_SEVERITIES) })),
  cells: z.array(z.object({ key: z.string(), row_index: z.number().int().min(0), value: z.string() })),
  options: z.record(z.string(), z.array(z.object({ label: z.string(), value: z.string() }))),
});

export interface WebhookValidator extends ExternalValidator {
  close(): void;
}

/**
 * The one client of the webhook service's Validate: a deadline a little above the budget, a breaker that
 * answers at once while the webhook service is down, and `document_validation_duration_seconds`. When the call
 * fails, the projection of the validation links says what the webhook service would have: no validator (nothing
 * to say), or "unavailable" with a reason the user may read, under the link's failure policy.
 */
export function webhookValidator(
  address: string,
  options: { identity: GrpcIdentity; metrics: Metrics; logger: Logger; links: ValidationLinkPolicies },
): WebhookValidator {
  const client = createWebhookClient(address, {
    identity: options.identity,
    metrics: options.metrics,
    breaker: { volumeThreshold: 5, resetTimeoutMs: 10_000 },
  });
  const duration = new Histogram({
    name: "document_validation_duration_seconds",
    help: "Validate calls as the document service waits for them (gRPC hop included), by validation type and outcome",
    labelNames: ["type", "outcome"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5, 1, 2.5, 5, 10, 15],
    registers: [options.metrics.registry],
  });

  async function ask(call: ValidationCall): Promise<ValidationResult> {
    const { document } = call;
    const deadlineMs = call.deadlineMs ?? call.timeoutMs;
    if (deadlineMs < MIN_VALIDATE_MS) return withoutCall(call, "the request's time for validation was spent before it could start");
    try {
      const response = await client.validate(
        {
          type: call.type,
          document_id: document.id,
          queue_id: document.queueId,
          workspace_id: document.workspaceId,
          organization_id: document.organizationId,
          ...(call.userId ? { user_id: call.userId } : {}),
          previous_annotations_json: JSON.stringify(call.previousAnnotations),
          annotations_json: JSON.stringify(document.annotations),
          timeout_ms: call.timeoutMs,
        },
        // The gRPC deadline is the time left: the webhook service fits its lookups, the receiver and its answer in it.
        { deadlineMs, ...(call.requestId ? { requestId: call.requestId } : {}) },
      );
      switch (response.outcome) {
        case "no_validator":
          return { outcome: "no_validator" };
        case "unavailable":
        case "rejected":
          return {
            outcome: response.outcome,
            reason: response.reason || "no reason given",
            // Empty from a webhook service that predates failure policies: allow.
            failurePolicy: response.failure_policy === "block" ? "block" : "allow",
          };
        case "ok": {
          const answer = answerSchema.safeParse(safeJson(response.answer_json));
          if (answer.success) {
            const { replacements, messages, cells, options: byKey } = answer.data;
            const byRow = cells.map(({ key, row_index, value }) => ({ key, rowIndex: row_index, value }));
            return { outcome: "ok", answer: { replacements, messages, cells: byRow, options: byKey } };
          }
          options.logger.error(
            { document_id: document.id, issues: answer.error.issues.slice(0, 3) },
            "Validate answered a malformed answer_json",
          );
          return { outcome: "unavailable", reason: "the validation service answered something unreadable" };
        }
        default:
          options.logger.error({ document_id: document.id, outcome: response.outcome }, "Validate answered an unknown outcome");
          return { outcome: "unavailable", reason: "the validation service answered something unreadable" };
      }
    } catch (error) {
      options.logger.warn({ err: error, document_id: document.id, type: call.type }, "Validate failed");
      const late = error instanceof UpstreamError && error.status === 504;
      return withoutCall(call, late ? "the validation service did not answer in time" : "the validation service is unavailable");
    }
  }

  /** What the link projection says when Validate could not be asked: no validator, or unavailable under its policy. */
  async function withoutCall(call: ValidationCall, reason: string): Promise<ValidationResult> {
    let failurePolicy: Awaited<ReturnType<ValidationLinkPolicies["policyOf"]>>;
    try {
      failurePolicy = await options.links.policyOf(call.document.queueId, call.type);
    } catch (lookupError) {
      // Not knowing whether there is a validator, say that validation did not happen.
      options.logger.warn({ err: lookupError, document_id: call.document.id }, "validation link projection unreadable");
      return { outcome: "unavailable", reason };
    }
    return failurePolicy === undefined ? { outcome: "no_validator" } : { outcome: "unavailable", reason, failurePolicy };
  }

  return {
    async validate(call) {
      const started = performance.now();
      const result = await ask(call);
      duration.observe({ type: call.type, outcome: result.outcome }, (performance.now() - started) / 1000);
      return result;
    },
    close: () => client.close(),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
