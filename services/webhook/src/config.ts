import { booleanFlag, milliseconds, serviceConfigSchema } from "@docex/kit/config";
import { z } from "zod";

/** AES-256-GCM key for signing keys at rest: required, no default, so a deployment cannot forget it. */
const encryptionKey = z
  .string({ error: "is required: the base64 encoding of 32 random bytes (openssl rand -base64 32)" })
  .refine((value) => /^[A-Za-z0-9+/]{43}=$/.test(value) && Buffer.from(value, "base64").length === 32, {
    message: "must be the base64 encoding of exactly 32 bytes (openssl rand -base64 32)",
  });

export const DEFAULT_RETRY_SCHEDULE = "5,300,1800,7200,18000,36000,36000";

/** Seconds between attempts, e.g. `5,300,1800`; fractions are allowed (tests use short schedules). Empty: no retries. */
const retrySchedule = z
  .string()
  .default(DEFAULT_RETRY_SCHEDULE)
  .transform((text, ctx) => {
    const parts = text.trim() === "" ? [] : text.split(",").map((part) => part.trim());
    const seconds = parts.map(Number);
    if (seconds.some((value, index) => parts[index] === "" || !Number.isFinite(value) || value <= 0 || value > 7 * 86_400)) {
      ctx.addIssue({ code: "custom", message: "must be a comma-separated list of seconds, each > 0 and at most 7 days" });
      return z.NEVER;
    }
    return seconds;
  });

/** The kit's settings plus the webhook service's own. */
export const configSchema = serviceConfigSchema("webhook")
  .extend({
    /** Base64 of 32 bytes (a secret): seals the organizations' signing keys at rest. @default **required, secret** */
    WEBHOOK_KEY_ENCRYPTION_KEY: encryptionKey,
    /** `true` lets webhook and validation URLs reach loopback and private addresses (a local stack, tests); never in production. */
    WEBHOOK_ALLOW_PRIVATE_TARGETS: booleanFlag.default(false),
    /** Seconds between a delivery's attempts, comma-separated; empty: no retries. */
    WEBHOOK_RETRY_SCHEDULE: retrySchedule,
    /** A 2xx within this time is a success (API.md: 10 s). */
    WEBHOOK_DELIVERY_TIMEOUT_MS: milliseconds(10_000, { min: 1, max: 120_000 }),
    /**
     * How long a claimed delivery belongs to the sender that claimed it. A sender that dies mid-send leaves it
     * due again once this passes; it must exceed the timeout so that a live sender always finishes first.
     */
    WEBHOOK_DELIVERY_LEASE_MS: milliseconds(30_000, { min: 1, max: 3_600_000 }),
    /** Webhooks an organization may have; creating one more is 409 webhook_limit_reached. */
    WEBHOOK_MAX_PER_ORGANIZATION: z.coerce.number().int().min(1).max(10_000).default(100),
    /** Requests in flight per process, over all receivers. */
    WEBHOOK_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(2_000).default(128),
    /**
     * Requests in flight per process for one organization's receivers: a tenant whose receivers hang holds this many
     * slots at most, and the claims take organizations in turns, so the others' deliveries keep going.
     */
    WEBHOOK_MAX_IN_FLIGHT_PER_ORGANIZATION: z.coerce.number().int().min(1).max(2_000).default(16),
    /** How often the sender looks for due deliveries besides being woken by new ones. */
    WEBHOOK_POLL_INTERVAL_MS: milliseconds(1_000, { min: 1, max: 60_000 }),
    /** Per-receiver circuit breaker: opens past this failure percentage once this many requests were seen. */
    WEBHOOK_BREAKER_ERROR_PERCENTAGE: z.coerce.number().min(1).max(100).default(50),
    /** The requests a breaker must have seen before WEBHOOK_BREAKER_ERROR_PERCENTAGE opens it. */
    WEBHOOK_BREAKER_VOLUME_THRESHOLD: z.coerce.number().int().min(1).default(5),
    /** How long an open breaker waits before one probe request may go through. */
    WEBHOOK_BREAKER_RESET_MS: milliseconds(30_000, { min: 1, max: 3_600_000 }),
    /** JetStream redelivers an event whose handler did not answer within this time. */
    WEBHOOK_CONSUMER_ACK_WAIT_MS: milliseconds(15_000, { min: 1, max: 300_000 }),
    /** Deadline of the gRPC calls to membership. */
    WEBHOOK_MEMBERSHIP_DEADLINE_MS: milliseconds(1_000, { min: 1, max: 60_000 }),
    /** Deadline of the gRPC calls to document. */
    WEBHOOK_DOCUMENT_DEADLINE_MS: milliseconds(1_000, { min: 1, max: 60_000 }),
    /** How long a CheckPermission answer is reused; membership.changed evicts it sooner. */
    WEBHOOK_PERMISSION_CACHE_MS: milliseconds(30_000, { min: 1, max: 3_600_000 }),
    /**
     * Budget of one document_validation call (API.md), counted from Validate's arrival: the receiver is waited
     * for what is left of it. A caller's smaller `timeout_ms` shortens it; a larger one does not lengthen it.
     */
    DOCUMENT_VALIDATION_TIMEOUT_MS: milliseconds(200, { min: 1, max: 60_000 }),
    /** Budget of one initial_document_validation call (API.md): seconds are acceptable there. */
    INITIAL_VALIDATION_TIMEOUT_MS: milliseconds(10_000, { min: 1, max: 120_000 }),
    /**
     * After a signing-key rotation the previous key keeps signing (webhook-signature) and is accepted on validation
     * answers for this long, so receivers can switch without losing requests. 0: the new key alone, at once.
     */
    WEBHOOK_KEY_ROTATION_GRACE_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(30 * 86_400_000)
      .default(86_400_000),
    /** A webhook whose every attempt failed for this long (no success since the run's first failure) is disabled. */
    WEBHOOK_DISABLE_AFTER_FAILING_MS: milliseconds(5 * 86_400_000, { min: 1, max: 90 * 86_400_000 }),
    /** How often failing webhooks are looked for (and disabled). */
    WEBHOOK_FAILING_SWEEP_INTERVAL_MS: milliseconds(60_000, { min: 1, max: 3_600_000 }),
  })
  .refine((config) => config.WEBHOOK_DELIVERY_LEASE_MS >= config.WEBHOOK_DELIVERY_TIMEOUT_MS + 1_000, {
    path: ["WEBHOOK_DELIVERY_LEASE_MS"],
    message: "must exceed WEBHOOK_DELIVERY_TIMEOUT_MS by at least 1000 ms",
  });

export type WebhookConfig = z.infer<typeof configSchema>;
