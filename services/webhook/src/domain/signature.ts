import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * `x-service-signature`: lowercase hex HMAC-SHA256 of the raw body. The key is the signing key's text exactly
 * as the API returns it (its 64 hex characters as bytes), for deliveries and for validation answers alike.
 */
export function signBody(signingKey: string, rawBody: string | Buffer): string {
  return createHmac("sha256", Buffer.from(signingKey, "utf8")).update(rawBody).digest("hex");
}

/** Constant-time check of a signature received over a raw body (validation answers, issue 7). */
export function hasValidSignature(signingKey: string, rawBody: string | Buffer, signature: string | undefined): boolean {
  if (!signature || !/^[0-9a-f]{64}$/i.test(signature)) return false;
  const expected = Buffer.from(signBody(signingKey, rawBody), "hex");
  return timingSafeEqual(expected, Buffer.from(signature.toLowerCase(), "hex"));
}
