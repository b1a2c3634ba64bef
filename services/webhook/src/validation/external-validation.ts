import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { Annotation } from "@docex/annotations";
import type { ValidationRequestPayload } from "@docex/events";
import type { Logger } from "@docex/kit/logger";
import type { Metrics } from "@docex/kit/metrics";
import { inSpan, type Span } from "@docex/kit/tracing";
import { Histogram } from "prom-client";
import type { EndpointBreakers } from "../delivery/endpoint-breakers.js";
import { parsedTarget } from "../delivery/parsed-targets.js";
import { type PostResult, type ReceiverTransport, USER_AGENT, verdictOf } from "../delivery/receiver-transport.js";
import type { FailurePolicy, ValidationType } from "../domain/records.js";
import { hasValidSignature, requestSignatureHeaders, type SigningKeySet } from "../domain/signature.js";
import { type NormalisedAnswer, readAnswer } from "./validation-answer.js";
import type { DocumentScope, ValidationTargets } from "./validation-targets.js";

/** Answers above this size are rejected unread: an answer is a few kilobytes, and all of it must be held to check its signature. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** What a Validate keeps of its caller's deadline for its answer's way back. */
const ANSWER_MARGIN_MS = 30;

export interface ValidationCall extends DocumentScope {
  type: ValidationType;
  /** The user whose edit triggered the call; null for initial_document_validation. */
  userId: string | null;
  previousAnnotations: Annotation[];
  annotations: Annotation[];
  /** 0: the type's budget. Smaller: the caller's own deadline is nearer. It never lengthens the budget. */
  timeoutMs: number;
  /** The caller's gRPC deadline (epoch ms): the answer must be back before it, whatever `timeoutMs` says. */
  deadlineAt?: number;
  requestId: string;
  /** The target the caller decided on (RegisterValidationTarget's id, a link's or a validation webhook's); else it is looked up. */
  targetId?: string;
}

/** What a call came to; receiver trouble is an outcome, never an exception (protos/webhook.proto). */
export type ValidationOutcome =
  | { outcome: "ok"; answer: NormalisedAnswer; durationMs: number; failurePolicy: FailurePolicy }
  | { outcome: "no_validator" }
  | {
      outcome: "unavailable" | "rejected";
      reason: string;
      durationMs: number;
      failurePolicy: FailurePolicy;
      detail?: string;
      /** The queue's own link is not called until then (epoch ms): its breaker is open. */
      linkOpenUntil?: number;
    };

export interface ExternalValidationDeps {
  targets: ValidationTargets;
  /** Its own connection pool, so that validation never queues behind deliveries to the same receiver. */
  transport: ReceiverTransport;
  /** One set of per-link breakers per type, each with the type's budget as its timeout. */
  breakers: Record<ValidationType, EndpointBreakers>;
  budgetsMs: Record<ValidationType, number>;
  metrics: Metrics;
  logger: Logger;
}

/**
 * The webhook side of `document_validation` and `initial_document_validation` (ARCHITECTURE.md "The latency
 * budget of validation"): finds the document's validator, sends it the spec's payload signed as deliveries
 * are, and reads its answer within the budget. The budget counts from the call's arrival; the receiver gets
 * what is left of it. No retries inside the budget: a slow receiver is answered "unavailable" and its
 * breaker, once open, answers at once until a probe gets through.
 */
export class ExternalValidation {
  private readonly duration: Histogram<"type" | "outcome">;

  constructor(private readonly deps: ExternalValidationDeps) {
    this.duration = new Histogram({
      name: "webhook_validation_duration_seconds",
      help: "Validate calls from their arrival to their answer, by validation type and outcome (ok, no_validator, unavailable, rejected)",
      labelNames: ["type", "outcome"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5, 1, 2.5, 5, 10, 15],
      registers: [deps.metrics.registry],
    });
  }

  async validate(call: ValidationCall): Promise<ValidationOutcome> {
    return inSpan(
      `validate ${call.type}`,
      { attributes: { "docex.validation.type": call.type, "docex.document.id": call.documentId } },
      (span) => this.validateInSpan(call, span),
    );
  }

  private async validateInSpan(call: ValidationCall, span: Span): Promise<ValidationOutcome> {
    const started = performance.now();
    const outcome = await this.callValidator(call, started, span);
    span.setAttributes({
      "docex.validation.outcome": outcome.outcome,
      ...(outcome.outcome === "unavailable" || outcome.outcome === "rejected" ? { "docex.validation.reason": outcome.reason } : {}),
    });
    this.duration.observe({ type: call.type, outcome: outcome.outcome }, (performance.now() - started) / 1000);
    if (outcome.outcome === "unavailable" || outcome.outcome === "rejected") {
      this.deps.logger.info(
        {
          request_id: call.requestId,
          document_id: call.documentId,
          type: call.type,
          outcome: outcome.outcome,
          reason: outcome.reason,
          ...(outcome.detail ? { detail: outcome.detail } : {}),
        },
        "external validation did not answer usefully",
      );
    }
    return outcome;
  }

  private async callValidator(call: ValidationCall, started: number, span: Span): Promise<ValidationOutcome> {
    // A target id that names nothing (or another organization's) is looked up as without one: the nearest deprecated
    // validation webhook, if any, answers.
    const chosen = call.targetId === undefined ? undefined : await this.deps.targets.byId(call.type, call.organizationId, call.targetId);
    const target = chosen ?? (await this.deps.targets.find(call.type, call));
    if (!target) return { outcome: "no_validator" };
    const { signingKeys, failurePolicy } = target;
    if (target.signingKeyMissing) {
      // Fail closed: an unsigned call whose answer nobody checks is what signing on was meant to prevent.
      return {
        outcome: "unavailable",
        reason: "it was not called: signature verification is on but the organization has no webhook signing key",
        durationMs: 0,
        failurePolicy,
      };
    }
    const body = JSON.stringify({
      document_id: call.documentId,
      queue_id: call.queueId,
      user_id: call.userId,
      previous_annotations: call.previousAnnotations,
      annotations: call.annotations,
      webhook_event: call.type,
    } satisfies ValidationRequestPayload);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      ...requestSignatureHeaders(randomUUID(), Math.floor(Date.now() / 1000), body, signingKeys),
    };

    const typeBudget = this.deps.budgetsMs[call.type];
    const budget = Math.min(call.timeoutMs > 0 ? call.timeoutMs : typeBudget, typeBudget);
    // The caller's deadline bounds the receiver too: the answer has to travel back before it passes.
    const untilDeadline = call.deadlineAt === undefined ? Number.POSITIVE_INFINITY : call.deadlineAt - ANSWER_MARGIN_MS - Date.now();
    const timeoutMs = Math.max(1, Math.floor(Math.min(budget - (performance.now() - started), untilDeadline)));
    const breakers = this.deps.breakers[call.type];
    span.setAttributes({
      "server.address": parsedTarget(target.url).host,
      "docex.validation.timeout_ms": timeoutMs,
      "docex.validation.budget_ms": budget,
      "docex.breaker.state": breakers.stateOf(target.breakerKey),
    });
    const sentAt = performance.now();
    const run = await breakers.run(
      target.breakerKey,
      (breakerSignal) =>
        this.deps.transport.post(target.url, body, headers, {
          timeoutMs,
          excerptBytes: MAX_ANSWER_BYTES,
          signal: breakerSignal ? AbortSignal.any([breakerSignal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs),
        }),
      // A body that stopped half-way (the time ran out while it arrived) is as much a failure as no answer.
      (result) => (result.cutShort && !result.truncated ? { failed: true, counts: true } : verdictOf(result)),
    );
    const durationMs = Math.round(performance.now() - sentAt);
    if (run.kind === "sent" && run.result.statusCode !== null) span.setAttribute("http.response.status_code", run.result.statusCode);
    if (run.kind === "open") {
      return {
        outcome: "unavailable",
        reason: "it kept failing and is not called for a while (circuit breaker open)",
        durationMs,
        failurePolicy,
        // A link's or registered target's breaker speaks for every document of the queue that uses it.
        ...(target.kind === "webhook" ? {} : { linkOpenUntil: run.retryAt }),
      };
    }
    const unavailable = this.unavailability(run.result, budget);
    if (unavailable) {
      const detail = run.result.error ?? run.result.cutShort;
      return { outcome: "unavailable", reason: unavailable, durationMs, failurePolicy, ...(detail ? { detail } : {}) };
    }
    const rejection = this.rejection(run.result, signingKeys);
    if (rejection) return { outcome: "rejected", reason: rejection, durationMs, failurePolicy };
    const reading = readAnswer(run.result.body);
    if (!reading.ok) return { outcome: "rejected", reason: reading.reason, durationMs, failurePolicy };
    return { outcome: "ok", answer: reading.answer, durationMs, failurePolicy };
  }

  /**
   * Why the receiver gave no answer, in words that can be shown to the user (no addresses), and the same words
   * for the same cause, so that a repeated failure leaves the document's warning as it was.
   */
  private unavailability(result: PostResult, budgetMs: number): string | undefined {
    const timedOut = `no answer within ${budgetMs} ms`;
    if (result.refused) return "its URL points to an address that is not allowed";
    if (result.error) return result.error.startsWith("no answer within") ? timedOut : "it could not be reached";
    const status = result.statusCode ?? 0;
    if (status < 200 || status >= 300) return `it answered HTTP ${status}`;
    if (result.cutShort && !result.truncated) return result.cutShort.startsWith("no answer within") ? timedOut : "its answer was cut short";
    return undefined;
  }

  /** During a rotation's grace window an answer signed with the previous key is accepted too: the receiver may not have switched yet. */
  private rejection(result: PostResult, signingKeys: SigningKeySet | undefined): string | undefined {
    if (result.truncated) return `its answer is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`;
    if (!signingKeys) return undefined;
    const signature = result.headers["x-service-signature"];
    if (signature === undefined) return "its answer has no x-service-signature, which signing requires";
    const given = Array.isArray(signature) ? signature[0] : signature;
    const body = result.body ?? Buffer.alloc(0);
    const keys = signingKeys.previous ? [signingKeys.current, signingKeys.previous] : [signingKeys.current];
    if (!keys.some((key) => hasValidSignature(key, body, given))) return "its answer's x-service-signature does not match the answer";
    return undefined;
  }
}
