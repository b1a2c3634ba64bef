import { WebhookPayloadError, WebhookSignatureError } from "./errors.js";
import { type HeadersLike, headerOf } from "./headers.js";
import { WEBHOOK_EVENTS, type WebhookEvent, type WebhookPayload } from "./payloads.js";
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, SIGNATURE_PATTERN, TIMESTAMP_HEADER, verifySignature } from "./signature.js";
import { type StandardVerifyOptions, verifyStandardWebhook } from "./standard-webhooks.js";

export { type SignatureProblem, WebhookPayloadError, WebhookSignatureError } from "./errors.js";
export type { HeadersLike } from "./headers.js";

export interface ParsedDelivery<P extends WebhookPayload = WebhookPayload> {
  payload: P;
  /** The delivery id (`x-service-delivery-id`, or `webhook-id`): the same on every retry of one delivery; deduplicate on it. */
  deliveryId: string | undefined;
  /**
   * Unix seconds when this attempt started (`x-service-timestamp`, or `webhook-timestamp`). Only the Standard
   * Webhooks timestamp is covered by the signature.
   */
  timestamp: number | undefined;
}

export interface ParseOptions extends StandardVerifyOptions {
  /**
   * Which signature to check: `x-service-signature` (the default; the HMAC of the body alone) or
   * `standard-webhooks` (`webhook-signature` over id, timestamp and body, with the timestamp's tolerance).
   */
  scheme?: "x-service-signature" | "standard-webhooks";
}

const REQUIRED_FIELDS: Record<WebhookEvent, Record<string, (value: unknown) => boolean>> = {
  document_status_changed: { document_id: isString, queue_id: isString, status: isString },
  queue_created: { workspace_id: isString, queue_id: isString },
  initial_document_validation: validationFields(),
  document_validation: validationFields(),
};

function isString(value: unknown): boolean {
  return typeof value === "string";
}

function validationFields(): Record<string, (value: unknown) => boolean> {
  return {
    document_id: isString,
    queue_id: isString,
    user_id: (value) => value === null || typeof value === "string",
    previous_annotations: Array.isArray,
    annotations: Array.isArray,
  };
}

function payloadOf(text: string): WebhookPayload {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new WebhookPayloadError("the body is not JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new WebhookPayloadError("the body is not a JSON object");
  const record = parsed as Record<string, unknown>;
  const event = record.webhook_event;
  if (typeof event !== "string" || !(WEBHOOK_EVENTS as readonly string[]).includes(event)) {
    throw new WebhookPayloadError(`unknown webhook_event ${JSON.stringify(event)}`);
  }
  const wrong = Object.entries(REQUIRED_FIELDS[event as WebhookEvent])
    .filter(([field, check]) => !check(record[field]))
    .map(([field]) => field);
  if (wrong.length > 0) throw new WebhookPayloadError(`${event} payload with missing or mistyped ${wrong.join(", ")}`);
  return parsed as WebhookPayload;
}

/**
 * Verifies a request from docex and parses its payload. The signature is checked before the body is
 * parsed: `x-service-signature` by default, the Standard Webhooks headers with `{ scheme: "standard-webhooks" }`
 * (`key` may then also be a list of keys, or `whsec_` secrets). Throws WebhookSignatureError when the signature
 * is missing, malformed or wrong (or, for Standard Webhooks, its timestamp outside the tolerance), and
 * WebhookPayloadError when the signed body is not a payload of a known `webhook_event` with its top-level
 * fields (annotations are not inspected). Narrow on `payload.webhook_event`.
 */
export function parseDelivery(
  rawBody: string | Buffer,
  headers: HeadersLike,
  key: string | readonly string[],
  options: ParseOptions = {},
): ParsedDelivery {
  if (options.scheme === "standard-webhooks") {
    const verified = verifyStandardWebhook(rawBody, headers, key, options);
    const payload = payloadOf(typeof rawBody === "string" ? rawBody : rawBody.toString("utf8"));
    return { payload, deliveryId: verified.id, timestamp: verified.timestamp };
  }
  if (typeof key !== "string") throw new TypeError("x-service-signature is checked with one key: pass it as a string");
  const signature = headerOf(headers, SIGNATURE_HEADER);
  if (!verifySignature(rawBody, signature, key)) {
    throw new WebhookSignatureError(signature === undefined ? "missing" : SIGNATURE_PATTERN.test(signature) ? "mismatch" : "malformed");
  }
  const payload = payloadOf(typeof rawBody === "string" ? rawBody : rawBody.toString("utf8"));
  const timestamp = Number(headerOf(headers, TIMESTAMP_HEADER));
  return {
    payload,
    deliveryId: headerOf(headers, DELIVERY_ID_HEADER),
    timestamp: Number.isFinite(timestamp) && timestamp > 0 ? timestamp : undefined,
  };
}
