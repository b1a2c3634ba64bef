import { randomBytes } from "node:crypto";
import { expect } from "chai";
import { SecretSealer } from "../src/crypto/secret-sealer.js";

describe("SecretSealer", () => {
  const sealer = new SecretSealer(randomBytes(32));

  it("opens what it sealed under the same context, and nothing else", () => {
    const sealed = sealer.seal("signing key bytes", "organization:one");
    expect(sealed).to.match(/^v1\./).and.not.include("signing key bytes");
    expect(sealer.open(sealed, "organization:one")).to.equal("signing key bytes");
    expect(() => sealer.open(sealed, "organization:two")).to.throw();
    expect(() => new SecretSealer(randomBytes(32)).open(sealed, "organization:one")).to.throw();
    const tampered = `${sealed.slice(0, -4)}AAAA`;
    expect(() => sealer.open(tampered, "organization:one")).to.throw();
    expect(() => sealer.open("v0.abc", "organization:one")).to.throw(/format/);
    expect(sealer.seal("same", "c")).to.not.equal(sealer.seal("same", "c"));
  });

  it("takes a 16-byte GCM tag only: the same value with its tag cut to 4 or 12 bytes does not open", () => {
    // An empty secret: iv | tag. A GCM tag cut short is a prefix of the full one, so a decipher without a pinned tag
    // length opened these (and checked only 4 bytes: forgeable in about 2^32 tries).
    const bytes = Buffer.from(sealer.seal("", "c").slice(3), "base64");
    expect(sealer.open(`v1.${bytes.toString("base64")}`, "c")).to.equal("");
    for (const tagBytes of [4, 12]) {
      const cut = `v1.${bytes.subarray(0, 12 + tagBytes).toString("base64")}`;
      expect(() => sealer.open(cut, "c"), `a ${tagBytes}-byte tag`).to.throw(/too short/);
    }
  });

  it("refuses a key that is not 32 bytes, naming it, and fingerprints the key", () => {
    expect(() => new SecretSealer(randomBytes(16), "WEBHOOK_KEY_ENCRYPTION_KEY")).to.throw("WEBHOOK_KEY_ENCRYPTION_KEY must be 32 bytes.");
    const key = randomBytes(32);
    expect(new SecretSealer(key).fingerprint)
      .to.equal(new SecretSealer(key).fingerprint)
      .and.match(/^[0-9a-f]{16}$/);
  });
});
