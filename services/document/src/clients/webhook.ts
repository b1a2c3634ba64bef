import { performance } from "node:perf_hooks";
import { UpstreamError } from "@docex/kit/errors";
import type { GrpcIdentity } from "@docex/kit/grpc";
import type { Logger } from "@docex/kit/logger";
import type { Metrics } from "@docex/kit/metrics";
import { annotationsReaderJson, createWebhookClient, toJsonText, validationAnswerJson } from "@docex/protos";
import { Counter, Histogram } from "prom-client";
import type { AppliedValidator, ExternalValidator, KnownValidators, ValidationCall, ValidationResult } from "../domain/validation.js";

/**
 * Less time than this left for validation: the call is not made (no receiver answers that fast across two hops),
 * and the result is the "unavailable" of the document's validator, under its failure policy.
 */
export const MIN_VALIDATE_MS = 10;

export interface WebhookValidator extends ExternalValidator {
  /** Opens the channel that Validate calls take and waits for the webhook service's first answer. */
  warm(): Promise<boolean>;
  close(): void;
}

/**
 * The one client of the webhook service's Validate: a deadline a little above the budget, a breaker that answers at
 * once while the webhook service is down, and `document_validation_duration_seconds`. Which validator applies is this
 * service's configuration (`KnownValidators`, read with the cached queue): with none, Validate is not asked
 * (`document_validation_skipped_total`); otherwise it is asked to call that target, and a failure is "unavailable"
 * under the validator's failure policy.
 */
export function webhookValidator(
  address: string,
  options: { identity: GrpcIdentity; metrics: Metrics; logger: Logger; validators: KnownValidators },
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
  const skipped = new Counter({
    name: "document_validation_skipped_total",
    help: "Validations not asked of the webhook service, by type and reason: no_validator (no link or validation webhook applies to the document)",
    labelNames: ["type", "reason"],
    registers: [options.metrics.registry],
  });
  for (const type of ["document_validation", "initial_document_validation"]) {
    skipped.inc({ type, reason: "no_validator" }, 0);
  }
  /** The document's validator; undefined when there is none, an Error when it cannot be read (then the call decides). */
  async function validatorOf(call: ValidationCall): Promise<AppliedValidator | undefined | Error> {
    try {
      return await options.validators.of(call.type, scopeOf(call));
    } catch (error) {
      options.logger.warn({ err: error, document_id: call.document.id }, "the document's validators could not be read");
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  async function ask(call: ValidationCall): Promise<ValidationResult> {
    const { document } = call;
    const found = await validatorOf(call);
    if (found === undefined) {
      skipped.inc({ type: call.type, reason: "no_validator" });
      return { outcome: "no_validator" };
    }
    // Unreadable: the webhook service is asked without a target (it looks the validator up itself).
    const validator = found instanceof Error ? undefined : found;
    const deadlineMs = call.deadlineMs ?? call.timeoutMs;
    if (deadlineMs < MIN_VALIDATE_MS) return withoutCall(validator, "the request's time for validation was spent before it could start");
    try {
      const response = await client.validate(
        {
          type: call.type,
          document_id: document.id,
          queue_id: document.queueId,
          workspace_id: document.workspaceId,
          organization_id: document.organizationId,
          ...(call.userId ? { user_id: call.userId } : {}),
          previous_annotations_json: toJsonText(annotationsReaderJson, call.previousAnnotations),
          annotations_json: toJsonText(annotationsReaderJson, document.annotations),
          timeout_ms: call.timeoutMs,
          target_id: validator?.targetId ?? "",
        },
        // The gRPC deadline is the time left: the webhook service fits its lookups, the receiver and its answer in it.
        { deadlineMs, ...(call.requestId ? { requestId: call.requestId } : {}) },
      );
      switch (response.outcome) {
        case "no_validator":
          return { outcome: "no_validator" };
        case "unavailable":
        case "rejected": {
          const result: ValidationResult = {
            outcome: response.outcome,
            reason: response.reason || "no reason given",
            // The validator's own policy (validation webhooks of the deprecated API: allow).
            failurePolicy: validator?.failurePolicy ?? (response.failure_policy === "block" ? "block" : "allow"),
          };
          return result;
        }
        case "ok": {
          const answer = validationAnswerJson.safeParse(safeJson(response.answer_json));
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
      return withoutCall(validator, late ? "the validation service did not answer in time" : "the validation service is unavailable");
    }
  }

  /** When Validate could not be asked: "unavailable" under the validator's policy (not knowing it: allow). */
  function withoutCall(validator: AppliedValidator | undefined, reason: string): ValidationResult {
    return { outcome: "unavailable", reason, failurePolicy: validator?.failurePolicy ?? "allow" };
  }

  return {
    async validate(call) {
      const started = performance.now();
      const result = await ask(call);
      duration.observe({ type: call.type, outcome: result.outcome }, (performance.now() - started) / 1000);
      return result;
    },
    warm: () => client.warm(),
    close: () => client.close(),
  };
}

function scopeOf(call: ValidationCall) {
  const { id: documentId, queueId, workspaceId, organizationId } = call.document;
  return { documentId, queueId, workspaceId, organizationId };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
