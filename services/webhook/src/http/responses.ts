import { documentStatusChangedPayloadSchema, queueCreatedPayloadSchema } from "@docex/events";
import { z } from "zod";
import {
  DELIVERY_STATUSES,
  type Delivery,
  ENTITY_TYPES,
  SIGNATURE_VERIFICATION,
  VALIDATION_TYPES,
  type ValidationLink,
  WEBHOOK_TYPES,
  type Webhook,
} from "../domain/records.js";
import type { SigningKey } from "../domain/signing-keys.js";

const timestamp = z.iso.datetime();

/** WebhookResponseDto of API.md. */
export const webhookSchema = z.strictObject({
  id: z.guid(),
  url: z.string(),
  entity_type: z.enum(ENTITY_TYPES),
  entity_id: z.guid(),
  organization_id: z.guid(),
  type: z.enum(WEBHOOK_TYPES),
  signature_verification: z.enum(SIGNATURE_VERIFICATION),
  destination_id: z.guid().nullable(),
  deprecated: z.boolean().describe("True for validation types created through POST /webhooks; they live on queues now"),
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
});

export function signingKeyResponse(key: SigningKey): z.infer<typeof signingKeySchema> {
  return { key: key.key, created_at: key.createdAt.toISOString() };
}

export const validationLinkSchema = z.strictObject({
  queue_id: z.guid(),
  type: z.enum(VALIDATION_TYPES),
  url: z.string(),
  signature_verification: z.enum(SIGNATURE_VERIFICATION),
  created_at: timestamp,
  updated_at: timestamp,
});

export function validationLinkResponse(link: ValidationLink): z.infer<typeof validationLinkSchema> {
  return {
    queue_id: link.queueId,
    type: link.type,
    url: link.url,
    signature_verification: link.signatureVerification,
    created_at: link.createdAt.toISOString(),
    updated_at: link.updatedAt.toISOString(),
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

export function paginationOf(page: number, pageSize: number, total: number) {
  return { page, page_size: pageSize, total, total_pages: Math.ceil(total / pageSize) };
}
