import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

const SEALED_PREFIX = "v1.";
const IV_BYTES = 12;
/**
 * GCM's full tag, pinned on both sides: without `authTagLength` a decipher takes any tag of 4 to 16 bytes, and a
 * value cut to a 4-byte tag could be forged in about 2^32 tries.
 */
const TAG_BYTES = 16;

/**
 * AES-256-GCM for secrets at rest under a service's key-encryption key (AUTH_KEY_ENCRYPTION_KEY,
 * WEBHOOK_KEY_ENCRYPTION_KEY): `v1.` + base64(iv | tag | ciphertext). Each sealed secret is bound to what it
 * belongs to through the associated data (`context`), so a value copied to another row does not open.
 */
export class SecretSealer {
  /** Short digest of the key-encryption key, stored beside sealed values so that a wrong key is named as such. */
  readonly fingerprint: string;

  constructor(
    protected readonly key: Buffer,
    /** Names the key in the error for a key of the wrong length, e.g. its environment variable. */
    keyName = "The key-encryption key",
  ) {
    if (key.length !== 32) throw new Error(`${keyName} must be 32 bytes.`);
    this.fingerprint = createHash("sha256").update(key).digest("hex").slice(0, 16);
  }

  /** `context` says what the plaintext belongs to; opening it under another context fails. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64");
  }

  /** Throws for another key, another context, a tampered or truncated value or an unknown format. */
  open(sealed: string, context: string): string {
    if (!sealed.startsWith(SEALED_PREFIX)) throw new Error("Unknown sealed-secret format.");
    const bytes = Buffer.from(sealed.slice(SEALED_PREFIX.length), "base64");
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error("The sealed secret is too short to hold its IV and a 16-byte tag.");
    const decipher = createDecipheriv("aes-256-gcm", this.key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  }
}

/**
 * A stored secret that the configured key-encryption key does not open: it was sealed under another key. The fix
 * is configuration (the right key, or a fresh database), not code, so a service that cannot start because of it
 * exits with its own code, and a local stack runner can say what to do.
 */
export class SealedWithAnotherKeyError extends Error {
  /** EX_CONFIG of sysexits.h: a configuration error. */
  static readonly exitCode = 78;

  constructor(
    /** The environment variable that holds the key, e.g. AUTH_KEY_ENCRYPTION_KEY. */
    readonly keyName: string,
    message: string,
  ) {
    super(message);
    this.name = "SealedWithAnotherKeyError";
  }
}
