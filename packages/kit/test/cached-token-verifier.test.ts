import { expect } from "chai";
import { CachedTokenVerifier } from "../src/auth/cached-token-verifier.js";
import type { Caller } from "../src/auth/token-verifier.js";
import { UnauthorizedError } from "../src/errors.js";

/** A stand-in for kit's TokenVerifier that counts its calls; tokens named "bad..." fail. */
class CountingVerifier {
  calls = 0;
  constructor(private readonly expiresAt: number) {}
  async verify(token: string): Promise<Caller> {
    this.calls++;
    if (token.startsWith("bad")) throw new UnauthorizedError("The access token is invalid.", "invalid_token");
    return { userId: token, email: "", amr: [], tokenId: token, expiresAt: this.expiresAt, token };
  }
}

describe("CachedTokenVerifier", () => {
  let clock: number;
  const now = () => clock;

  beforeEach(() => {
    clock = 1_000_000_000_000;
  });

  it("checks a good token once while it is fresh, and again after maxAgeMs", async () => {
    const inner = new CountingVerifier(clock / 1000 + 900);
    const verifier = new CachedTokenVerifier(inner, { maxAgeMs: 60_000, now });
    expect((await verifier.verify("t1")).userId).to.equal("t1");
    await verifier.verify("t1");
    expect(inner.calls).to.equal(1);
    clock += 60_001;
    await verifier.verify("t1");
    expect(inner.calls).to.equal(2);
  });

  it("never trusts a token past its exp", async () => {
    const inner = new CountingVerifier(clock / 1000 + 10);
    const verifier = new CachedTokenVerifier(inner, { maxAgeMs: 60_000, now });
    await verifier.verify("t1");
    clock += 10_001;
    await verifier.verify("t1");
    expect(inner.calls).to.equal(2);
  });

  it("does not remember failures", async () => {
    const inner = new CountingVerifier(clock / 1000 + 900);
    const verifier = new CachedTokenVerifier(inner, { now });
    for (let attempt = 0; attempt < 3; attempt++) {
      const error = await verifier.verify("bad-token").catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(UnauthorizedError);
    }
    expect(inner.calls).to.equal(3);
    expect(verifier.size).to.equal(0);
  });

  it("keeps at most maxEntries tokens, dropping the oldest", async () => {
    const inner = new CountingVerifier(clock / 1000 + 900);
    const verifier = new CachedTokenVerifier(inner, { maxEntries: 2, now });
    await verifier.verify("t1");
    await verifier.verify("t2");
    await verifier.verify("t3");
    expect(verifier.size).to.equal(2);
    await verifier.verify("t1");
    expect(inner.calls).to.equal(4);
  });
});
