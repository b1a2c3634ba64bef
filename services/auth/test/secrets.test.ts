import { randomBytes } from "node:crypto";
import { expect } from "chai";
import { randomPin, randomToken, SealingKey, tokenDigest } from "../src/domain/secrets.js";

describe("secrets", () => {
  const sealing = new SealingKey(randomBytes(32));

  it("seals with AES-256-GCM bound to its context: another context or key cannot open it", () => {
    const sealed = sealing.seal("the private key", "signing-key:one");
    expect(sealed).to.match(/^v1\./);
    expect(sealed).to.not.include("private");
    expect(sealing.open(sealed, "signing-key:one")).to.equal("the private key");
    expect(() => sealing.open(sealed, "signing-key:two")).to.throw();
    expect(() => new SealingKey(randomBytes(32)).open(sealed, "signing-key:one")).to.throw();
    expect(sealing.seal("the private key", "signing-key:one")).to.not.equal(sealed);
  });

  it("makes 256-bit tokens and six-digit PINs, and digests PINs with a key per user", () => {
    expect(randomToken()).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(randomToken()).to.not.equal(randomToken());
    expect(tokenDigest("a")).to.have.length(32);
    for (let round = 0; round < 50; round += 1) expect(randomPin()).to.match(/^\d{6}$/);
    expect(sealing.pinDigest("user-1", "123456").equals(sealing.pinDigest("user-2", "123456"))).to.equal(false);
    expect(sealing.pinDigest("user-1", "123456").equals(new SealingKey(randomBytes(32)).pinDigest("user-1", "123456"))).to.equal(false);
  });
});
