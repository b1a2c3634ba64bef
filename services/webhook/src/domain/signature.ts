import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from "node:crypto";
import { BoundedCache } from "@docex/kit/cache";

/**
 * HMAC keys by their text. Node prepares a key given as bytes on every createHmac, which costs several times
 * the HMAC of a delivery's body (about 30 µs against 4 µs measured); a KeyObject is prepared once. Bounded:
 * 10,000 keys, the least recently used leaving first.
 */
const hmacKeys = new BoundedCache<string, KeyObject>({ maxEntries: 10_000 });

function hmacKey(signingKey: string): KeyObject {
  let key = hmacKeys.get(signingKey);
  if (!key) {
    key = createSecretKey(Buffer.from(signingKey, "utf8"));
    hmacKeys.set(signingKey, key);
  }
  return key;
}

/**
 * `x-service-signature`: lowercase hex HMAC-SHA256 of the raw body. The key is the signing key's text exactly
 * as the API returns it (its 64 hex characters as bytes), for deliveries and for validation answers alike.
 */
export function signBody(signingKey: string, rawBody: string | Buffer): string {
  return createHmac("sha256", hmacKey(signingKey)).update(rawBody).digest("hex");
}

/** Constant-time check of a signature received over a raw body (validation answers, issue 7). */
export function hasValidSignature(signingKey: string, rawBody: string | Buffer, signature: string | undefined): boolean {
  if (!signature || !/^[0-9a-f]{64}$/i.test(signature)) return false;
  const expected = Buffer.from(signBody(signingKey, rawBody), "hex");
  return timingSafeEqual(expected, Buffer.from(signature.toLowerCase(), "hex"));
}

/**
 * One `webhook-signature` entry (Standard Webhooks): `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`,
 * keyed with the same bytes as `x-service-signature` (the key's text). The Standard Webhooks secret of a key
 * is therefore `whsec_` + base64 of those bytes (`standardWebhooksSecret`).
 */
export function signStandard(signingKey: string, id: string, timestamp: number, rawBody: string | Buffer): string {
  return `v1,${createHmac("sha256", hmacKey(signingKey)).update(`${id}.${timestamp}.`).update(rawBody).digest("base64")}`;
}

/** The key as the official standardwebhooks libraries take it: `whsec_<base64 of the key's text>`. */
export function standardWebhooksSecret(signingKey: string): string {
  return `whsec_${Buffer.from(signingKey, "utf8").toString("base64")}`;
}

/** The keys that sign one request: the current key and, during a rotation's grace window, the previous one. */
export interface SigningKeySet {
  current: string;
  previous?: string;
}

/**
 * The identifying and signing headers of a request to a receiver (a delivery attempt or a validation call):
 * docex's own (`x-service-*`) and Standard Webhooks' (`webhook-*`). `x-service-signature` is signed with the
 * current key only (one value, as the spec defines it); `webhook-signature` carries one entry per key, so a
 * receiver still holding the previous key keeps verifying during the grace window.
 */
export function requestSignatureHeaders(
  id: string,
  timestampSeconds: number,
  body: string,
  keys: SigningKeySet | undefined,
): Record<string, string> {
  const timestamp = String(timestampSeconds);
  const headers: Record<string, string> = {
    "x-service-delivery-id": id,
    "x-service-timestamp": timestamp,
    "webhook-id": id,
    "webhook-timestamp": timestamp,
  };
  if (keys) {
    headers["x-service-signature"] = signBody(keys.current, body);
    const signatures = [signStandard(keys.current, id, timestampSeconds, body)];
    if (keys.previous) signatures.push(signStandard(keys.previous, id, timestampSeconds, body));
    headers["webhook-signature"] = signatures.join(" ");
  }
  return headers;
}
