import { performance } from "node:perf_hooks";
import { type GrpcIdentity, type Logger, type Metrics, UpstreamError } from "@docex/kit";
import { createWebhookClient, type Validator } from "@docex/protos";
import { Counter, Histogram } from "prom-client";
import { z } from "zod";
import { MESSAGE_SEVERITIES } from "../domain/records.js";
import {
  certainlyNoValidator,
  type ExternalValidator,
  type KnownValidators,
  NOTE_SETTLES_MS,
  policyWithoutCall,
  type ValidationCall,
  type ValidationResult,
  type ValidatorKnowledge,
} from "../domain/validation.js";
import type { ListedValidator, ValidatorList } from "../domain/validator-seed.js";

/**
 * Less time than this left for validation: the call is not made (no receiver answers that fast across two hops),
 * and the result is what the projections say of an unavailable validator.
 */
export const MIN_VALIDATE_MS = 10;

/** answer_json of protos/webhook.proto. */
const answerSchema = z.object({
  replacements: z.array(z.object({ key: z.string(), value: z.string() })),
  messages: z.array(z.object({ key: z.string().nullable(), message: z.string(), severity: z.enum(MESSAGE_SEVERITIES) })),
  cells: z.array(z.object({ key: z.string(), row_index: z.number().int().min(0), value: z.string() })),
  options: z.record(z.string(), z.array(z.object({ label: z.string(), value: z.string() }))),
});

export interface WebhookValidator extends ExternalValidator, ValidatorList {
  /** Opens the channel that Validate calls take and waits for the webhook service's first answer. */
  warm(): Promise<boolean>;
  close(): void;
}

/**
 * The one client of the webhook service (Validate, ListValidators): a deadline a little above the budget, a breaker
 * that answers at once while the webhook service is down, and `document_validation_duration_seconds`. The
 * projections of the webhook service's validators are read first: where they show none for certain, Validate is
 * not asked (`document_validation_skipped_total`). When the call fails, they say what the webhook service would
 * have: no validator (nothing to say), or "unavailable" with a reason the user may read, under the failure policy.
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
  // The seed's ListValidators has a client of its own, without a breaker: it runs at start, often before the webhook
  // service answers, and its failures must not open the breaker that edits' Validate calls go through.
  const listing = createWebhookClient(address, { identity: options.identity, metrics: options.metrics, deadlineMs: 10_000 });
  const duration = new Histogram({
    name: "document_validation_duration_seconds",
    help: "Validate calls as the document service waits for them (gRPC hop included), by validation type and outcome",
    labelNames: ["type", "outcome"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5, 1, 2.5, 5, 10, 15],
    registers: [options.metrics.registry],
  });
  const skipped = new Counter({
    name: "document_validation_skipped_total",
    help:
      "Validations not asked of the webhook service, by type and reason: no_validator (the projections show none for the " +
      "document), link_breaker_open (the webhook service said the queue's link is not called for a while)",
    labelNames: ["type", "reason"],
    registers: [options.metrics.registry],
  });
  for (const type of ["document_validation", "initial_document_validation"]) {
    for (const reason of ["no_validator", "link_breaker_open"]) skipped.inc({ type, reason }, 0);
  }
  /**
   * Queues whose own link the webhook service reported open (its breaker refuses calls until a trial call is due),
   * with the answer it gave: until then every document of the queue gets that answer without a call, as the
   * webhook service would give it (a link always wins over validation webhooks). A link removed or changed
   * meanwhile is asked about again at the latest when the breaker would let a trial call through.
   */
  const openLinks = new LinkMemory<ValidationResult>();

  /** The projections' view of the document's validator; undefined when they cannot be read (then Validate decides). */
  async function knowledgeOf(call: ValidationCall): Promise<ValidatorKnowledge | undefined> {
    try {
      return await options.validators.of(call.type, scopeOf(call));
    } catch (error) {
      options.logger.warn({ err: error, document_id: call.document.id }, "validator projection unreadable");
      return undefined;
    }
  }

  async function ask(call: ValidationCall): Promise<ValidationResult> {
    const { document } = call;
    const open = openLinks.get(call.type, document.queueId);
    if (open) {
      skipped.inc({ type: call.type, reason: "link_breaker_open" });
      return open;
    }
    const known = await knowledgeOf(call);
    // The queue's own link (this service's configuration) names its target and decides what a failure comes to.
    const link = known?.link;
    if (known && certainlyNoValidator(known)) {
      skipped.inc({ type: call.type, reason: "no_validator" });
      return { outcome: "no_validator" };
    }
    const deadlineMs = call.deadlineMs ?? call.timeoutMs;
    if (deadlineMs < MIN_VALIDATE_MS) return withoutCall(known, "the request's time for validation was spent before it could start");
    const askedAt = Date.now();
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
          // No link: the webhook service looks up the nearest validation webhook of the deprecated API.
          target_id: link?.targetId ?? "",
        },
        // The gRPC deadline is the time left: the webhook service fits its lookups, the receiver and its answer in it.
        { deadlineMs, ...(call.requestId ? { requestId: call.requestId } : {}) },
      );
      switch (response.outcome) {
        case "no_validator":
          if (known?.notedAt !== undefined && known.failurePolicy === undefined) await forgetSettledNotes(call, askedAt);
          return { outcome: "no_validator" };
        case "unavailable":
        case "rejected": {
          const result: ValidationResult = {
            outcome: response.outcome,
            reason: response.reason || "no reason given",
            // The link's own policy; a deprecated validation webhook's is the webhook service's word (allow).
            failurePolicy: link?.failurePolicy ?? (response.failure_policy === "block" ? "block" : "allow"),
          };
          if (response.outcome === "unavailable" && response.link_open_for_ms > 0) {
            openLinks.set(call.type, document.queueId, askedAt + response.link_open_for_ms, result);
          }
          return result;
        }
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
      return withoutCall(known, late ? "the validation service did not answer in time" : "the validation service is unavailable");
    }
  }

  /**
   * Validate found no validator although a note said to expect one: the notes made long enough before the call
   * (NOTE_SETTLES_MS) belong to changes that never committed, or to validators removed since. Later ones stay.
   */
  async function forgetSettledNotes(call: ValidationCall, askedAt: number): Promise<void> {
    try {
      await options.validators.forgetNotes(call.type, scopeOf(call), askedAt - NOTE_SETTLES_MS);
    } catch (error) {
      options.logger.warn({ err: error, document_id: call.document.id }, "could not forget settled validator notes");
    }
  }

  /** What the projections say when Validate could not be asked: no validator, or unavailable under its policy. */
  function withoutCall(known: ValidatorKnowledge | undefined, reason: string): ValidationResult {
    // Not knowing whether there is a validator, say that validation did not happen.
    if (!known) return { outcome: "unavailable", reason };
    const failurePolicy = policyWithoutCall(known);
    return failurePolicy === undefined ? { outcome: "no_validator" } : { outcome: "unavailable", reason, failurePolicy };
  }

  return {
    async listValidators(after, limit) {
      const page = await listing.listValidators({ after, limit });
      return {
        validators: page.validators.flatMap((validator) => listedValidator(validator) ?? []),
        more: page.more,
        last: page.validators.at(-1)?.key ?? after,
      };
    },
    async validate(call) {
      const started = performance.now();
      const result = await ask(call);
      duration.observe({ type: call.type, outcome: result.outcome }, (performance.now() - started) / 1000);
      return result;
    },
    warm: () => client.warm(),
    close: () => {
      client.close();
      listing.close();
    },
  };
}

/**
 * Something this process remembers of a queue's link of one validation type, until a moment (epoch ms). Per
 * process, at most 10,000 queues: when full, expired entries go, and if none has, all of them (then the queues
 * are looked up again, as without the memory).
 */
class LinkMemory<T> {
  private readonly byKey = new Map<string, { until: number; value: T }>();

  get(type: string, queueId: string): T | undefined {
    if (this.byKey.size === 0) return undefined;
    const key = `${type}/${queueId}`;
    const entry = this.byKey.get(key);
    if (!entry) return undefined;
    if (entry.until > Date.now()) return entry.value;
    this.byKey.delete(key);
    return undefined;
  }

  set(type: string, queueId: string, until: number, value: T): void {
    if (this.byKey.size >= MAX_REMEMBERED_LINKS) {
      const now = Date.now();
      for (const [key, entry] of this.byKey) if (entry.until <= now) this.byKey.delete(key);
      if (this.byKey.size >= MAX_REMEMBERED_LINKS) this.byKey.clear();
    }
    this.byKey.set(`${type}/${queueId}`, { until, value });
  }
}

const MAX_REMEMBERED_LINKS = 10_000;

function scopeOf(call: ValidationCall) {
  const { id: documentId, queueId, workspaceId, organizationId } = call.document;
  return { documentId, queueId, workspaceId, organizationId };
}

const ENTITY_TYPES = ["document", "queue", "workspace", "organization"] as const;

/** One validator of ListValidators as the seed records it; undefined for one this client cannot read (an older or newer server). */
function listedValidator(validator: Validator): ListedValidator | undefined {
  if (validator.kind === "link") {
    return {
      kind: "link",
      queueId: validator.entity_id,
      type: validator.type,
      failurePolicy: validator.failure_policy === "block" ? "block" : "allow",
    };
  }
  const entityType = ENTITY_TYPES.find((known) => known === validator.entity_type);
  if (validator.kind !== "webhook" || !entityType) return undefined;
  return { kind: "webhook", webhookId: validator.webhook_id, type: validator.type, entityType, entityId: validator.entity_id };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
