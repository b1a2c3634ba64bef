import { SecretSealer } from "@docex/kit/crypto";

/**
 * WEBHOOK_KEY_ENCRYPTION_KEY: the kit's AES-256-GCM sealing for the organizations' signing keys at rest, each bound
 * to its organization through the associated data, so a row copied to another organization does not open.
 */
export class KeySealer extends SecretSealer {
  constructor(key: Buffer) {
    super(key, "WEBHOOK_KEY_ENCRYPTION_KEY");
  }

  static fromBase64(text: string): KeySealer {
    return new KeySealer(Buffer.from(text, "base64"));
  }
}
