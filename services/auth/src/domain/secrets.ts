import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, randomInt, timingSafeEqual } from "node:crypto";

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

const SEALED_PREFIX = "v1.";

/**
 * The key-encryption key (AUTH_KEY_ENCRYPTION_KEY): AES-256-GCM for secrets at rest (signing keys,
 * TOTP secrets), each bound to what it belongs to through the associated data, and HMAC keys derived
 * from it for digests that must not be brute-forced offline (six-digit PINs).
 */
export class SealingKey {
  private readonly pinKey: Buffer;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error("The key-encryption key must be 32 bytes.");
    this.pinKey = Buffer.from(hkdfSync("sha256", key, Buffer.alloc(0), "docex-auth/pin-digest", 32));
  }

  static fromBase64(text: string): SealingKey {
    return new SealingKey(Buffer.from(text, "base64"));
  }

  /** `context` says what the plaintext belongs to; opening it under another context fails. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64");
  }

  open(sealed: string, context: string): string {
    if (!sealed.startsWith(SEALED_PREFIX)) throw new Error("Unknown sealed-secret format.");
    const bytes = Buffer.from(sealed.slice(SEALED_PREFIX.length), "base64");
    const decipher = createDecipheriv("aes-256-gcm", this.key, bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8");
  }

  /** A keyed digest of a PIN: a leaked table does not give the PIN away by trying all million. */
  pinDigest(userId: string, pin: string): Buffer {
    return createHmac("sha256", this.pinKey).update(`${userId}:${pin}`, "utf8").digest();
  }
}
