import { WEBHOOK_TYPES, type WebhookType } from "@docex/events";

/** The records of the webhook context, as plain objects shared by the store, the domain and the edges. */

/** The four webhook types of the spec, one list with the integrators' payload schemas in @docex/events. */
export { WEBHOOK_TYPES, type WebhookType };

export const ENTITY_TYPES = ["organization", "workspace", "queue", "document"] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export const VALIDATION_TYPES = ["initial_document_validation", "document_validation"] as const;
export type ValidationType = (typeof VALIDATION_TYPES)[number];

export const SIGNATURE_VERIFICATION = ["enabled", "disabled"] as const;
export type SignatureVerification = (typeof SIGNATURE_VERIFICATION)[number];

/** `disabled`: failing without a success for WEBHOOK_DISABLE_AFTER_FAILING_MS; a PATCH enables it again. */
export const WEBHOOK_STATUSES = ["active", "disabled"] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/** What an unavailable validator means for the edit: `allow` it with a warning, or `block` export with an error. */
export const FAILURE_POLICIES = ["allow", "block"] as const;
export type FailurePolicy = (typeof FAILURE_POLICIES)[number];

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export function isValidationType(type: string): type is ValidationType {
  return (VALIDATION_TYPES as readonly string[]).includes(type);
}

/** An entity and its ancestors' ids, as ResolveEntity names them; levels below it are null. */
export interface EntityScope {
  entityType: EntityType;
  entityId: string;
  organizationId: string;
  workspaceId: string | null;
  queueId: string | null;
  documentId: string | null;
}

export interface Webhook {
  id: string;
  url: string;
  entityType: EntityType;
  entityId: string;
  organizationId: string;
  workspaceId: string | null;
  queueId: string | null;
  type: WebhookType;
  signatureVerification: SignatureVerification;
  destinationId: string | null;
  deprecated: boolean;
  status: WebhookStatus;
  disabledAt: Date | null;
  disabledReason: string | null;
  /** When the current run of failed attempts began; null after a success. */
  failingSince: Date | null;
  lastSuccessAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface DeliveryAttempt {
  number: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  /** The first 1 KiB of the receiver's answer. */
  responseExcerpt: string | null;
  succeeded: boolean;
  /** Sent because someone asked for it through the retry endpoint. */
  manual: boolean;
}

export interface Delivery {
  id: string;
  webhookId: string;
  eventId: string;
  type: WebhookType;
  status: DeliveryStatus;
  body: string;
  attemptCount: number;
  maxAttempts: number;
  /** When the next attempt is due; null once the delivery succeeded or failed. */
  nextAttemptAt: Date | null;
  /** True while a sender holds it (an attempt may be on the wire). */
  inFlight: boolean;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  attempts: DeliveryAttempt[];
}

export interface Page {
  page: number;
  pageSize: number;
}

export interface Paged<T> {
  items: T[];
  total: number;
}
