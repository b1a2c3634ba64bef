import { createHash, createHmac, hkdfSync, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import { SecretSealer } from "@docex/kit/crypto";

/** 256 random bits, URL-safe: refresh tokens, trusted sources, magic / reset / invitation tokens. */
export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

/** How opaque tokens are stored and looked up: SHA-256 of the token's text. */
export function tokenDigest(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

export function randomPin(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, "0");
}

export function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The key-encryption key (AUTH_KEY_ENCRYPTION_KEY): the kit's AES-256-GCM sealing for secrets at rest (signing
 * keys, TOTP secrets), and HMAC keys derived from it for digests that must not be brute-forced offline (six-digit PINs).
 */
export class SealingKey extends SecretSealer {
  private readonly pinKey: Buffer;

  constructor(key: Buffer) {
    super(key, "AUTH_KEY_ENCRYPTION_KEY");
    this.pinKey = Buffer.from(hkdfSync("sha256", key, Buffer.alloc(0), "docex-auth/pin-digest", 32));
  }

  static fromBase64(text: string): SealingKey {
    return new SealingKey(Buffer.from(text, "base64"));
  }

  /** A keyed digest of a PIN: a leaked table does not give the PIN away by trying all million. */
  pinDigest(userId: string, pin: string): Buffer {
    return createHmac("sha256", this.pinKey).update(`${userId}:${pin}`, "utf8").digest();
  }
}
