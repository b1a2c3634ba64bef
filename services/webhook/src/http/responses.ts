import { documentStatusChangedPayloadSchema, queueCreatedPayloadSchema } from "@docex/events";
import { paginationSchema } from "@docex/kit/http";
import { z } from "zod";
import { HEALTH_WINDOW, type ReceiverHealthReport } from "../domain/receiver-health.js";
import {
  DELIVERY_STATUSES,
  type Delivery,
  ENTITY_TYPES,
  SIGNATURE_VERIFICATION,
  WEBHOOK_STATUSES,
  WEBHOOK_TYPES,
  type Webhook,
} from "../domain/records.js";
import { standardWebhooksSecret } from "../domain/signature.js";
import type { SigningKey } from "../domain/signing-keys.js";

const timestamp = z.iso.datetime();

/** WebhookResponseDto of API.md. */
const URL_READ =
  "Whole for callers who may manage it (owner, supervisor, admin of its queue); for other readers masked: scheme, host, port and path, token-like path segments (8+ characters with a digit, or 24+) as ***, no query";

export const webhookSchema = z.strictObject({
  id: z.guid(),
  url: z.string().describe(URL_READ),
  entity_type: z.enum(ENTITY_TYPES),
  entity_id: z.guid(),
  organization_id: z.guid(),
  type: z.enum(WEBHOOK_TYPES),
  signature_verification: z.enum(SIGNATURE_VERIFICATION),
  destination_id: z.guid().nullable(),
  deprecated: z.boolean().describe("True for validation types created through POST /webhooks; they live on queues now"),
  status: z
    .enum(WEBHOOK_STATUSES)
    .describe(
      "`disabled` once every attempt failed for WEBHOOK_DISABLE_AFTER_FAILING_MS (5 days); nothing is sent then. A PATCH enables it",
    ),
  disabled_reason: z.string().nullable().describe("Why the webhook was disabled; null while active"),
  disabled_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

export function webhookResponse(webhook: Webhook): z.infer<typeof webhookSchema> {
  return {
    id: webhook.id,
    url: webhook.url,
    entity_type: webhook.entityType,
    entity_id: webhook.entityId,
    organization_id: webhook.organizationId,
    type: webhook.type,
    signature_verification: webhook.signatureVerification,
    destination_id: webhook.destinationId,
    deprecated: webhook.deprecated,
    status: webhook.status,
    disabled_reason: webhook.disabledReason,
    disabled_at: webhook.disabledAt ? webhook.disabledAt.toISOString() : null,
    created_at: webhook.createdAt.toISOString(),
    updated_at: webhook.updatedAt.toISOString(),
  };
}

/** WebhookSigningKeyDto of API.md. */
export const signingKeySchema = z.strictObject({
  key: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .describe("64 hex characters; the HMAC-SHA256 key is this text as bytes"),
  created_at: timestamp.describe("When this key was created or last rotated"),
  key_id: z.guid().describe("Names this key (in the audit log, for instance) without revealing it"),
  standard_webhooks_secret: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/]+=*$/)
    .describe("The same key for Standard Webhooks libraries (webhook-signature): whsec_ and the base64 of the key's 64 characters"),
  previous_key_valid_until: timestamp
    .nullable()
    .describe("Until when the key replaced by the last rotation still signs webhook-signature beside this one; null when none does"),
});

export function signingKeyResponse(key: SigningKey): z.infer<typeof signingKeySchema> {
  return {
    key: key.key,
    created_at: key.createdAt.toISOString(),
    key_id: key.keyId,
    standard_webhooks_secret: standardWebhooksSecret(key.key),
    previous_key_valid_until: key.previousValidUntil ? key.previousValidUntil.toISOString() : null,
  };
}

export const deliveryAttemptSchema = z.strictObject({
  number: z.number().int().min(1),
  started_at: timestamp,
  duration_ms: z.number().int().min(0),
  status_code: z.number().int().nullable().describe("Null when no answer arrived"),
  succeeded: z.boolean(),
  error: z.string().nullable(),
  response_body: z.string().nullable().describe("The first 1 KiB of the receiver's answer"),
  manual: z.boolean().describe("Sent because of POST …/retry"),
});

export const deliverySchema = z.strictObject({
  id: z.guid().describe("Sent as x-service-delivery-id, the same on every attempt"),
  webhook_id: z.guid(),
  event_id: z.guid(),
  webhook_event: z.enum(WEBHOOK_TYPES),
  status: z.enum(DELIVERY_STATUSES),
  payload: z.union([documentStatusChangedPayloadSchema, queueCreatedPayloadSchema]).describe("The body sent, exactly"),
  attempt_count: z.number().int().min(0),
  max_attempts: z.number().int().min(1),
  next_attempt_at: timestamp.nullable().describe("When the next attempt is due (pending only; while in flight, when the lease ends)"),
  in_flight: z.boolean(),
  last_error: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  completed_at: timestamp.nullable(),
  attempts: z.array(deliveryAttemptSchema),
});

/** A delivery with its attempts, oldest attempt first. */
export function deliveryResponse(delivery: Delivery): z.infer<typeof deliverySchema> {
  return {
    id: delivery.id,
    webhook_id: delivery.webhookId,
    event_id: delivery.eventId,
    webhook_event: delivery.type,
    status: delivery.status,
    payload: JSON.parse(delivery.body),
    attempt_count: delivery.attemptCount,
    max_attempts: delivery.maxAttempts,
    next_attempt_at: delivery.status === "pending" && delivery.nextAttemptAt ? delivery.nextAttemptAt.toISOString() : null,
    in_flight: delivery.inFlight,
    last_error: delivery.lastError,
    created_at: delivery.createdAt.toISOString(),
    updated_at: delivery.updatedAt.toISOString(),
    completed_at: delivery.completedAt ? delivery.completedAt.toISOString() : null,
    attempts: delivery.attempts.map((attempt) => ({
      number: attempt.number,
      started_at: attempt.startedAt.toISOString(),
      duration_ms: attempt.durationMs,
      status_code: attempt.statusCode,
      succeeded: attempt.succeeded,
      error: attempt.error,
      response_body: attempt.responseExcerpt,
      manual: attempt.manual,
    })),
  };
}

export const receiverHealthSchema = z.strictObject({
  success_rate: z.number().min(0).max(1).nullable().describe("Succeeded attempts / attempts in the window; null without attempts"),
  attempts: z.number().int().min(0),
  p50_latency_ms: z.number().int().min(0).nullable(),
  p99_latency_ms: z.number().int().min(0).nullable(),
  breaker_state: z.enum(["closed", "open", "half_open"]).describe("The receiver's circuit breaker, as the answering replica sees it"),
  window: z.literal(HEALTH_WINDOW.name),
  last_success_at: timestamp.nullable().describe("The last successful attempt ever"),
  failing_since: timestamp.nullable().describe("The first failed attempt of the current run of failures; null after a success"),
});

export function receiverHealthResponse(health: ReceiverHealthReport): z.infer<typeof receiverHealthSchema> {
  return {
    success_rate: health.successRate,
    attempts: health.attempts,
    p50_latency_ms: health.p50LatencyMs,
    p99_latency_ms: health.p99LatencyMs,
    breaker_state: health.breakerState,
    window: health.window,
    last_success_at: health.lastSuccessAt ? health.lastSuccessAt.toISOString() : null,
    failing_since: health.failingSince ? health.failingSince.toISOString() : null,
  };
}

/** Pagination of a whole list (the four webhook lists without `page`/`page_size`): one page holding everything. */
export function wholeListPagination(total: number) {
  return { page: 1, page_size: total, total, total_pages: total === 0 ? 0 : 1 };
}

/** The four webhook lists: API.md's pagination, except that a whole list's `page_size` is its `total` (0 or above 100 too). */
export const webhookListSchema = z.object({
  data: z.array(webhookSchema),
  pagination: paginationSchema.extend({
    page_size: z.number().int().min(0).describe("`total` when the whole list was asked for (no page or page_size); else 1..100"),
  }),
});
