import { generateKeyPairSync, type KeyObject, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import { expect } from "chai";
import jwt from "jsonwebtoken";
import { TokenVerifier } from "../src/auth/token-verifier.js";
import { UnauthorizedError, UpstreamError } from "../src/errors.js";
import { baseUrlOf } from "./support.js";

/** An issuer whose JWKS can rotate, fail and be counted. */
class RotatingIssuer {
  keys: { kid: string; privateKey: KeyObject; publicKey: KeyObject }[] = [];
  requests = 0;
  available = true;
  /** Delay of each JWKS answer, to hold fetches in flight. */
  delayMs = 0;
  server!: Server;

  async start(): Promise<this> {
    this.rotate();
    this.server = createServer((_req, res) => {
      this.requests += 1;
      setTimeout(() => {
        if (!this.available) {
          res.statusCode = 503;
          res.end();
          return;
        }
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({
            keys: this.keys.map(({ kid, publicKey }) => ({ ...publicKey.export({ format: "jwk" }), kid, alg: "RS256", use: "sig" })),
          }),
        );
      }, this.delayMs);
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return this;
  }

  rotate(): void {
    this.keys.unshift({ kid: randomUUID(), ...generateKeyPairSync("rsa", { modulusLength: 2048 }) });
  }

  get uri(): string {
    return `${baseUrlOf(this.server)}/jwks.json`;
  }

  sign(kid = this.keys[0]!.kid): string {
    const now = Math.floor(Date.now() / 1000);
    return jwt.sign({ sub: "user-1", jti: randomUUID(), iat: now, exp: now + 600 }, this.keys[0]!.privateKey, {
      algorithm: "RS256",
      keyid: kid,
      issuer: "docex",
      audience: "docex-api",
    });
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const refused = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(UnauthorizedError);
    return;
  }
  expect.fail("the token was accepted");
};

/** Refused as "auth is away" (503), not as a bad token: its key is unknown and the key set could not be fetched. */
const unverifiable = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(UpstreamError);
    expect(error).to.include({ status: 503, code: "auth_unavailable" });
    return;
  }
  expect.fail("the token was accepted");
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("TokenVerifier's JWKS key set (forged kids, rotation, failures)", () => {
  let issuer: RotatingIssuer;

  beforeEach(async () => {
    issuer = await new RotatingIssuer().start();
  });
  afterEach(() => issuer.stop());

  const verifierWith = (cooldownMs: number) =>
    new TokenVerifier({ jwksUri: issuer.uri, issuer: "docex", audience: "docex-api", jwksCooldownMs: cooldownMs });

  it("a flood of forged kids costs one fetch per cooldown, and a token of a key rotated in passes within one cooldown", async () => {
    const cooldownMs = 400;
    const verifier = verifierWith(cooldownMs);
    await verifier.verify(issuer.sign());
    expect(issuer.requests).to.equal(1);

    // 300 tokens with forged kids, in parallel and in sequence, from "many clients". They are signed
    // first: signing is the slow part, and on a loaded machine it alone can outlast a cooldown.
    const forged = Array.from({ length: 300 }, () => issuer.sign(`forged-${randomUUID()}`));
    const floodStarted = Date.now();
    await Promise.all(forged.slice(0, 150).map((token) => refused(verifier.verify(token))));
    for (const token of forged.slice(150)) await refused(verifier.verify(token));
    // One fetch per cooldown that the flood spans (two in a run that fits in one cooldown).
    const cooldownsSpanned = Math.ceil((Date.now() - floodStarted) / cooldownMs);
    expect(issuer.requests, "forged kids: one fetch per cooldown").to.be.at.most(1 + Math.max(1, cooldownsSpanned));

    // The issuer rotates while the flood goes on; the new key's tokens pass after at most one cooldown.
    issuer.rotate();
    const rotatedAt = Date.now();
    let passedAfterMs: number | undefined;
    while (Date.now() - rotatedAt < cooldownMs * 3) {
      await refused(verifier.verify(issuer.sign(`forged-${randomUUID()}`)));
      try {
        await verifier.verify(issuer.sign());
        passedAfterMs = Date.now() - rotatedAt;
        break;
      } catch {
        await sleep(10);
      }
    }
    expect(passedAfterMs, "the new key's token never passed").to.not.equal(undefined);
    expect(passedAfterMs!).to.be.at.most(cooldownMs + 200);
    // Fetches over the whole test: one per cooldown at most (plus the first).
    expect(issuer.requests).to.be.at.most(2 + Math.ceil((Date.now() - rotatedAt) / cooldownMs) + 1);
  });

  it("keys already known keep verifying without a fetch whatever the flood", async () => {
    const verifier = verifierWith(60_000);
    await verifier.verify(issuer.sign());
    await Promise.all(Array.from({ length: 100 }, () => refused(verifier.verify(issuer.sign(`forged-${randomUUID()}`)))));
    const before = issuer.requests;
    for (let i = 0; i < 20; i++) await verifier.verify(issuer.sign());
    expect(issuer.requests - before).to.equal(0);
  });

  it("concurrent fetches coalesce into one", async () => {
    issuer.delayMs = 100;
    const verifier = verifierWith(60_000);
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => verifier.verify(i % 2 ? issuer.sign() : issuer.sign(`forged-${randomUUID()}`))),
    );
    expect(issuer.requests).to.equal(1);
    expect(results.filter((result) => result.status === "fulfilled")).to.have.length(25);
  });

  it("a failed fetch is remembered for the cooldown, and the previous keys keep serving", async () => {
    const cooldownMs = 300;
    const verifier = verifierWith(cooldownMs);
    issuer.available = false;
    for (let i = 0; i < 30; i++) await unverifiable(verifier.verify(issuer.sign()));
    expect(issuer.requests, "a failure is not retried within the cooldown").to.equal(1);
    issuer.available = true;
    await sleep(cooldownMs + 20);
    await verifier.verify(issuer.sign());
    expect(issuer.requests).to.equal(2);

    // The issuer goes down again: known keys still verify; unknown kids do not retry within the cooldown.
    await sleep(cooldownMs + 20);
    issuer.available = false;
    await unverifiable(verifier.verify(issuer.sign(`forged-${randomUUID()}`)));
    expect(issuer.requests).to.equal(3);
    for (let i = 0; i < 10; i++) {
      await verifier.verify(issuer.sign());
      await unverifiable(verifier.verify(issuer.sign(`forged-${randomUUID()}`)));
    }
    expect(issuer.requests).to.equal(3);
  });

  it("a key the issuer no longer publishes stops verifying once the set is refetched", async () => {
    const verifier = verifierWith(100);
    const oldToken = issuer.sign();
    await verifier.verify(oldToken);
    issuer.keys = [];
    issuer.rotate();
    await sleep(120);
    await verifier.verify(issuer.sign());
    await refused(verifier.verify(oldToken));
  });
});
