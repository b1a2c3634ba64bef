import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "x-service-signature";
export const DELIVERY_ID_HEADER = "x-service-delivery-id";
export const TIMESTAMP_HEADER = "x-service-timestamp";

/** 32 bytes of HMAC-SHA256 as hex. docex sends lowercase; either case is accepted (the bytes are what count). */
export const SIGNATURE_PATTERN = /^[0-9a-fA-F]{64}$/;

/** The prefix of a Standard Webhooks secret: `whsec_` and the base64 of the HMAC key's bytes. */
export const STANDARD_SECRET_PREFIX = "whsec_";

/**
 * The HMAC key's bytes. docex's key text (64 hex characters) is used as it is, its characters as bytes; its
 * Standard Webhooks form `whsec_<base64>` (the `standard_webhooks_secret` docex returns beside it) decodes
 * to the same bytes, so either form signs and verifies both headers.
 */
export function keyBytes(key: string): Buffer {
  if (typeof key !== "string" || key.length === 0) {
    throw new TypeError("the signing key must be a non-empty string: the key text exactly as docex returns it");
  }
  if (key.startsWith(STANDARD_SECRET_PREFIX)) {
    const encoded = key.slice(STANDARD_SECRET_PREFIX.length);
    const bytes = Buffer.from(encoded, "base64");
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || bytes.length === 0) {
      throw new TypeError("a whsec_ secret must be whsec_ followed by the base64 of the key's bytes");
    }
    return bytes;
  }
  return Buffer.from(key, "utf8");
}

function checkRawBody(rawBody: string | Buffer): void {
  // A body parsed by a framework no longer has the bytes that were signed.
  if (typeof rawBody !== "string" && !Buffer.isBuffer(rawBody)) {
    throw new TypeError("the body must be the raw request body (a string or a Buffer), not parsed JSON");
  }
}

/**
 * The signature docex expects over `rawBody`: lowercase hex HMAC-SHA256, keyed with the signing key's text
 * (its 64 hex characters as bytes, not decoded; a `whsec_` secret stands for the same bytes). A string body
 * is hashed as UTF-8.
 */
export function sign(rawBody: string | Buffer, key: string): string {
  checkRawBody(rawBody);
  return createHmac("sha256", keyBytes(key)).update(rawBody).digest("hex");
}

/**
 * Whether `header` (the `x-service-signature` value) signs `rawBody` with `key`. False for a missing header
 * and for anything that is not 64 hex characters; the comparison itself is constant-time. Throws a
 * TypeError for an empty key or a body that is not raw, which are mistakes in the caller, not in the request.
 */
export function verifySignature(rawBody: string | Buffer, header: string | undefined, key: string): boolean {
  const expected = Buffer.from(sign(rawBody, key), "hex");
  // Every well-formed signature is 32 bytes, so the length check tells an attacker nothing.
  if (typeof header !== "string" || !SIGNATURE_PATTERN.test(header)) return false;
  return timingSafeEqual(expected, Buffer.from(header, "hex"));
}

export interface SignedResponse {
  /** Send exactly this text: the signature covers these bytes. */
  body: string;
  headers: { "content-type": "application/json"; "x-service-signature": string };
}

/**
 * A validation answer ready to send: `body` serialized with JSON.stringify (a string is taken as the
 * raw text to send), and the headers that carry its signature.
 */
export function signResponse(body: unknown, key: string): SignedResponse {
  if (body instanceof Uint8Array) throw new TypeError("pass the answer as a value or as a JSON string, not as bytes");
  const text = typeof body === "string" ? body : JSON.stringify(body);
  if (typeof text !== "string") throw new TypeError("the answer cannot be serialized as JSON");
  return { body: text, headers: { "content-type": "application/json", [SIGNATURE_HEADER]: sign(text, key) } };
}
