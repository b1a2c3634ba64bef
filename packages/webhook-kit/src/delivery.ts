import { WEBHOOK_EVENTS, type WebhookEvent, type WebhookPayload } from "./payloads.js";
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, SIGNATURE_PATTERN, TIMESTAMP_HEADER, verifySignature } from "./signature.js";

/** Request headers as Node's `req.headers` (IncomingHttpHeaders) or a Fetch `Headers` object hold them. */
export type HeadersLike = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

export interface ParsedDelivery<P extends WebhookPayload = WebhookPayload> {
  payload: P;
  /** `x-service-delivery-id`: the same on every retry of one delivery; deduplicate on it. */
  deliveryId: string | undefined;
  /** `x-service-timestamp`: Unix seconds when this attempt started. Not covered by the signature. */
  timestamp: number | undefined;
}

export type SignatureProblem = "missing" | "malformed" | "mismatch";

/** The request is not signed by the key: answer 401 and ignore it. */
export class WebhookSignatureError extends Error {
  override readonly name = "WebhookSignatureError";

  constructor(readonly reason: SignatureProblem) {
    super(
      reason === "missing"
        ? `no ${SIGNATURE_HEADER} header`
        : reason === "malformed"
          ? `${SIGNATURE_HEADER} is not 64 hexadecimal characters`
          : `${SIGNATURE_HEADER} does not match the body and the signing key`,
    );
  }
}

/** A correctly signed body that is not a payload this version of the kit knows: answer 400. */
export class WebhookPayloadError extends Error {
  override readonly name = "WebhookPayloadError";
}

function headerOf(headers: HeadersLike, name: string): string | undefined {
  if (typeof headers.get === "function") return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = name in record ? name : Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  // A repeated header arrives as a list; joined, as Node joins unknown headers, it is malformed.
  return Array.isArray(value) ? value.join(", ") : value;
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
 * parsed. Throws WebhookSignatureError when the signature is missing, malformed or wrong, and
 * WebhookPayloadError when the signed body is not a payload of a known `webhook_event` with its
 * top-level fields (annotations are not inspected). Narrow on `payload.webhook_event`.
 */
export function parseDelivery(rawBody: string | Buffer, headers: HeadersLike, key: string): ParsedDelivery {
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
