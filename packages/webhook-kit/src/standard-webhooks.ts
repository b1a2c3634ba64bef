import { createHmac, timingSafeEqual } from "node:crypto";
import { WebhookSignatureError } from "./errors.js";
import { type HeadersLike, headerOf } from "./headers.js";
import { keyBytes, STANDARD_SECRET_PREFIX } from "./signature.js";

/** Standard Webhooks (standardwebhooks.com) headers, which docex sends beside `x-service-signature`. */
export const WEBHOOK_ID_HEADER = "webhook-id";
export const WEBHOOK_TIMESTAMP_HEADER = "webhook-timestamp";
export const WEBHOOK_SIGNATURE_HEADER = "webhook-signature";

/** How far `webhook-timestamp` may be from now, either way, by default: the spec's 5 minutes. */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

/** A v1 signature is 32 bytes of HMAC-SHA256; as base64 with padding, 44 characters. */
const V1_SIGNATURE = /^[A-Za-z0-9+/]{43}=$/;

/**
 * The Standard Webhooks secret of a docex signing key: `whsec_` and the base64 of the key's text as bytes
 * (docex returns it as `standard_webhooks_secret`). The official standardwebhooks libraries take it as it is.
 */
export function standardWebhooksSecret(key: string): string {
  return STANDARD_SECRET_PREFIX + keyBytes(key).toString("base64");
}

function hmac(key: string, id: string, timestamp: number, rawBody: string | Buffer): Buffer {
  if (typeof rawBody !== "string" && !Buffer.isBuffer(rawBody)) {
    throw new TypeError("the body must be the raw request body (a string or a Buffer), not parsed JSON");
  }
  return createHmac("sha256", keyBytes(key)).update(`${id}.${timestamp}.`).update(rawBody).digest();
}

/**
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`: one entry of `webhook-signature`, keyed with the signing
 * key (docex's key text, or its `whsec_` form: the same bytes). `timestamp` is Unix seconds.
 */
export function signStandardWebhook(id: string, timestamp: number, rawBody: string | Buffer, key: string): string {
  if (typeof id !== "string" || id === "" || id.includes(" ")) throw new TypeError("the webhook id must be a non-empty string");
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new TypeError("the timestamp must be whole Unix seconds");
  return `v1,${hmac(key, id, timestamp, rawBody).toString("base64")}`;
}

export interface StandardVerifyOptions {
  /** Seconds `webhook-timestamp` may be from now, either way (default 300). Older messages are replays. */
  toleranceSeconds?: number;
  /** The time to judge the timestamp against (default: now); for tests and for messages stored before checking. */
  now?: Date | number;
}

export interface VerifiedStandardWebhook {
  /** `webhook-id`: docex's delivery id, the same on every retry; deduplicate on it. */
  id: string;
  /** `webhook-timestamp`: Unix seconds of this attempt, covered by the signature. */
  timestamp: number;
}

/**
 * Verifies the Standard Webhooks headers of a request: `webhook-signature` holds one or more space-separated
 * `v1,<base64>` entries (during a key rotation docex signs with the new and the previous key), any of which
 * may match the HMAC of `id.timestamp.body` under `key` (or any of `keys`, if you hold more than one), compared
 * in constant time; then `webhook-timestamp` must be within the tolerance of now. Throws WebhookSignatureError:
 * `missing` (a header absent), `malformed` (a timestamp that is not Unix seconds, no v1 entry), `mismatch`,
 * `expired` (signed, but outside the tolerance: a replay).
 */
export function verifyStandardWebhook(
  rawBody: string | Buffer,
  headers: HeadersLike,
  key: string | readonly string[],
  options: StandardVerifyOptions = {},
): VerifiedStandardWebhook {
  const keys = typeof key === "string" ? [key] : [...key];
  if (keys.length === 0) throw new TypeError("at least one signing key is needed");
  const id = headerOf(headers, WEBHOOK_ID_HEADER);
  const timestampText = headerOf(headers, WEBHOOK_TIMESTAMP_HEADER);
  const signatures = headerOf(headers, WEBHOOK_SIGNATURE_HEADER);
  if (!id || !timestampText || !signatures) {
    const absent = [
      [WEBHOOK_ID_HEADER, id],
      [WEBHOOK_TIMESTAMP_HEADER, timestampText],
      [WEBHOOK_SIGNATURE_HEADER, signatures],
    ]
      .filter(([, value]) => !value)
      .map(([name]) => name);
    throw new WebhookSignatureError("missing", `no ${absent.join(", ")} header`);
  }
  if (!/^\d{1,15}$/.test(timestampText)) {
    throw new WebhookSignatureError("malformed", `${WEBHOOK_TIMESTAMP_HEADER} is not Unix seconds`);
  }
  const timestamp = Number(timestampText);
  const candidates = signatures
    .split(" ")
    .filter((entry) => entry.startsWith("v1,"))
    .map((entry) => entry.slice(3))
    .filter((signature) => V1_SIGNATURE.test(signature))
    .map((signature) => Buffer.from(signature, "base64"));
  if (candidates.length === 0) {
    throw new WebhookSignatureError("malformed", `${WEBHOOK_SIGNATURE_HEADER} holds no v1 signature`);
  }
  const expected = keys.map((each) => hmac(each, id, timestamp, rawBody));
  // Every candidate is compared with every key, so the time taken does not say which (if any) matched.
  let matched = false;
  for (const candidate of candidates) {
    for (const each of expected) matched = timingSafeEqual(candidate, each) || matched;
  }
  if (!matched) {
    throw new WebhookSignatureError("mismatch", `no signature in ${WEBHOOK_SIGNATURE_HEADER} matches the body and the signing key`);
  }
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now === undefined ? Date.now() : typeof options.now === "number" ? options.now : options.now.getTime();
  if (Math.abs(Math.floor(now / 1000) - timestamp) > tolerance) {
    throw new WebhookSignatureError(
      "expired",
      `${WEBHOOK_TIMESTAMP_HEADER} is more than ${tolerance} s from now: a replayed request, or a clock that is off`,
    );
  }
  return { id, timestamp };
}
