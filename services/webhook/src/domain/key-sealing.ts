import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

const SEALED_PREFIX = "v1.";

/**
 * WEBHOOK_KEY_ENCRYPTION_KEY: AES-256-GCM for the organizations' signing keys at rest. Each sealed key is
 * bound to its organization through the associated data, so a row copied to another organization does not open.
 */
export class KeySealer {
  /** Short digest of the key-encryption key, stored with each sealed key so that a wrong key is named as such. */
  readonly fingerprint: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error("WEBHOOK_KEY_ENCRYPTION_KEY must be 32 bytes.");
    this.fingerprint = createHash("sha256").update(key).digest("hex").slice(0, 16);
  }

  static fromBase64(text: string): KeySealer {
    return new KeySealer(Buffer.from(text, "base64"));
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64");
  }

  open(sealed: string, context: string): string {
    if (!sealed.startsWith(SEALED_PREFIX)) throw new Error("Unknown sealed-key format.");
    const bytes = Buffer.from(sealed.slice(SEALED_PREFIX.length), "base64");
    const decipher = createDecipheriv("aes-256-gcm", this.key, bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8");
  }
}
