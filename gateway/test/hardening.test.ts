import { randomUUID } from "node:crypto";
import { MAX_ACCESS_TOKEN_BYTES, readBearerToken } from "@docex/kit/auth";
import { rawRequest, TestIssuer } from "@docex/testkit";
import { expect } from "chai";
import { EchoService, type RunningGateway, startGateway } from "./harness.js";

const user = { sub: "5d0c7a1e-2b3f-4e6a-9c8d-7e6f5a4b3c2d" };

/** The least CPU (all threads of this process: the gateway and the client) of a few runs of `call`. */
async function leastCpuMs(call: () => Promise<void>, runs = 3): Promise<number> {
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const before = process.cpuUsage();
    await call();
    const used = process.cpuUsage(before);
    least = Math.min(least, (used.user + used.system) / 1000);
  }
  return least;
}

describe("gateway hardening (issue 24): crafted Authorization headers, forged kids, compressed and unauthenticated bodies", () => {
  let issuer: TestIssuer;
  let service: EchoService;
  let gateway: RunningGateway;
  let defaults: RunningGateway;
  const cooldownMs = 500;

  before(async () => {
    issuer = await TestIssuer.start();
    service = await EchoService.start(issuer, { jwksCooldownMs: cooldownMs });
    // Headers up to 96 KiB reach the token parser here, so a 64 KB header is the parser's to refuse.
    gateway = await startGateway({ issuer, upstreamUrl: service.url, jwksCooldownMs: cooldownMs, maxHeaderSize: 96 * 1024 });
    defaults = await startGateway({ issuer, upstreamUrl: service.url });
  });

  after(async () => {
    await gateway?.stop();
    await defaults?.stop();
    await service?.stop();
    await issuer?.stop();
  });

  beforeEach(() => {
    service.received.length = 0;
  });

  const problemOf = async (response: Response) => {
    expect(response.headers.get("content-type")).to.match(/^application\/problem\+json/);
    return (await response.json()) as { status: number; code: string; detail: string };
  };

  // What made the old regex quadratic: a long run it could split many ways, then a character that fails it.
  const crafted = `Bearer a.${"a".repeat(64 * 1024)}!`;

  it("answers a 64 KB crafted Authorization header with 401, parsing it in well under 5 ms of CPU", async () => {
    const response = await fetch(`${gateway.url}/api/v2/queues/q1`, { headers: { authorization: crafted } });
    expect(response.status).to.equal(401);
    expect(await problemOf(response)).to.include({ status: 401, code: "invalid_token" });
    expect(service.received).to.have.length(0);

    const before = process.cpuUsage();
    readBearerToken(crafted);
    const parse = process.cpuUsage(before);
    expect((parse.user + parse.system) / 1000).to.be.below(5);

    // The whole round trip (client and gateway in this process): the old regex spent seconds here.
    const roundTrip = await leastCpuMs(async () => {
      const again = await fetch(`${gateway.url}/api/v2/queues/q1`, { headers: { authorization: crafted } });
      expect(again.status).to.equal(401);
      await again.arrayBuffer();
    });
    expect(roundTrip).to.be.below(50);
  });

  it(`refuses a well-formed token over ${MAX_ACCESS_TOKEN_BYTES} bytes with 401 invalid_token`, async () => {
    const long = `${"a".repeat(20)}.${"b".repeat(MAX_ACCESS_TOKEN_BYTES)}.${"c".repeat(20)}`;
    const response = await fetch(`${gateway.url}/api/v2/queues/q1`, { headers: { authorization: `Bearer ${long}` } });
    expect(response.status).to.equal(401);
    expect((await problemOf(response)).detail).to.match(/longer than/);
    expect(service.received).to.have.length(0);
  });

  it("answers headers over the server's limit (Node's 16 KiB by default) with a 431 problem+json, not a bare close", async () => {
    const response = await fetch(`${defaults.url}/api/v2/queues/q1`, { headers: { authorization: crafted } });
    expect(response.status).to.equal(431);
    expect(await problemOf(response)).to.include({ status: 431, code: "headers_too_large" });
    expect(service.received).to.have.length(0);
  });

  it("after a flood of forged kids and a key rotation at the issuer, tokens of the new key pass within one cooldown", async () => {
    const good = issuer.mint(user);
    expect((await fetch(`${gateway.url}/api/v2/queues/q1`, { headers: { authorization: `Bearer ${good}` } })).status).to.equal(200);
    const requestsBefore = issuer.jwksRequests;
    const flood = () =>
      Promise.all(
        Array.from({ length: 40 }, async () => {
          const forged = issuer.mint(user, { kid: `forged-${randomUUID()}` });
          const response = await fetch(`${gateway.url}/api/v2/queues/q1`, { headers: { authorization: `Bearer ${forged}` } });
          expect(response.status).to.equal(401);
          await response.arrayBuffer();
        }),
      );
    await flood();
    await flood();
    // The service behind fetched once for the good token; the gateway at most once for the forged kids.
    expect(issuer.jwksRequests - requestsBefore, "forged kids within one cooldown").to.be.at.most(1);

    issuer.rotate();
    const rotatedAt = Date.now();
    let passedAfterMs: number | undefined;
    while (Date.now() - rotatedAt < cooldownMs * 4) {
      await flood();
      const response = await fetch(`${gateway.url}/api/v2/queues/q1`, { headers: { authorization: `Bearer ${issuer.mint(user)}` } });
      await response.arrayBuffer();
      if (response.status === 200) {
        passedAfterMs = Date.now() - rotatedAt;
        break;
      }
      expect(response.status).to.equal(401);
    }
    expect(passedAfterMs, "a token of the rotated-in key never passed").to.not.equal(undefined);
    expect(passedAfterMs!).to.be.at.most(cooldownMs + 400);
    // The old key's tokens (still published) keep passing too.
    expect((await fetch(`${gateway.url}/api/v2/queues/q1`, { headers: { authorization: `Bearer ${good}` } })).status).to.equal(200);
  });

  const post = (path: string, headers: Record<string, string | number>) =>
    `POST /api/v2${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n${Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("")}\r\n`;

  it("refuses a compressed body with 415 before reading it or proxying anything, public routes included", async () => {
    const token = issuer.mint(user);
    for (const path of ["/registers", "/auth/login", "/queues"]) {
      const { text, closed } = await rawRequest(
        gateway.url,
        post(path, { "content-encoding": "br", "content-length": 152, authorization: `Bearer ${token}` }),
      );
      expect(text, path).to.match(/^HTTP\/1\.1 415 /);
      expect(text).to.include('"code":"unsupported_content_encoding"');
      expect(closed, "closed instead of waiting for the body").to.equal(true);
    }
    const gzip = await fetch(`${gateway.url}/api/v2/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: "{}",
    });
    expect(gzip.status).to.equal(415);
    expect(service.received).to.have.length(0);
  });

  it("answers an unauthenticated 50 MiB upload with 401 without reading its body", async () => {
    const { text, closed } = await rawRequest(gateway.url, post("/registers", { "content-length": 50 * 1024 * 1024 - 1 }));
    expect(text).to.match(/^HTTP\/1\.1 401 /);
    expect(text).to.include('"code":"missing_token"');
    expect(closed).to.equal(true);
    expect(service.received).to.have.length(0);
  });
});
