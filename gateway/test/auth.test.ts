import { TestIssuer } from "@docex/testkit";
import { expect } from "chai";
import { EchoService, type RunningGateway, startGateway } from "./harness.js";

const user = { sub: "9b2f8f7c-4d1e-4a3b-8c2d-0e1f2a3b4c5d" };

describe("gateway access-token check", () => {
  let issuer: TestIssuer;
  let service: EchoService;
  let gateway: RunningGateway;

  before(async () => {
    issuer = await TestIssuer.start();
    service = await EchoService.start(issuer);
    gateway = await startGateway({ issuer, upstreamUrl: service.url });
  });

  after(async () => {
    await gateway?.stop();
    await service?.stop();
    await issuer?.stop();
  });

  beforeEach(() => {
    service.received.length = 0;
  });

  const rejected = async (authorization: string | undefined, expectedCode: string) => {
    const headers: Record<string, string> = { "x-request-id": `req-${expectedCode}` };
    if (authorization !== undefined) headers.authorization = authorization;
    const response = await fetch(`${gateway.url}/api/v2/queues/q1`, { headers });
    expect(response.status).to.equal(401);
    expect(response.headers.get("content-type")).to.match(/^application\/problem\+json/);
    const problem = (await response.json()) as { status: number; code: string; request_id: string; type: string };
    expect(problem).to.include({ status: 401, code: expectedCode, request_id: `req-${expectedCode}` });
    expect(service.received, "the service must not see a rejected request").to.have.length(0);
  };

  it("rejects a request without a token with 401 and does not proxy it", async () => {
    await rejected(undefined, "missing_token");
  });

  it("rejects a non-bearer authorization header", async () => {
    await rejected(`Basic ${Buffer.from("ada:secret").toString("base64")}`, "missing_token");
  });

  it("rejects an expired token", async () => {
    await rejected(`Bearer ${issuer.forged(user).expired}`, "token_expired");
  });

  it("rejects alg none", async () => {
    await rejected(`Bearer ${issuer.forged(user).algNone}`, "invalid_token");
  });

  it("rejects HS256 signed with the public key", async () => {
    await rejected(`Bearer ${issuer.forged(user).hs256WithPublicKey}`, "invalid_token");
  });

  it("rejects a token signed by an unknown key", async () => {
    await rejected(`Bearer ${issuer.forged(user).unknownKey}`, "invalid_token");
  });

  it("rejects a token signed by another key under the issuer's kid", async () => {
    await rejected(`Bearer ${issuer.forged(user).wrongKeySameKid}`, "invalid_token");
  });

  it("rejects a wrong audience", async () => {
    await rejected(`Bearer ${issuer.forged(user).wrongAudience}`, "invalid_token");
  });

  it("rejects a wrong issuer", async () => {
    await rejected(`Bearer ${issuer.forged(user).wrongIssuer}`, "invalid_token");
  });

  it("rejects a tampered payload", async () => {
    await rejected(`Bearer ${issuer.forged(user).tamperedPayload}`, "invalid_token");
  });

  it("rejects a token that is not valid yet", async () => {
    await rejected(`Bearer ${issuer.forged(user).notYetValid}`, "invalid_token");
  });

  it("checks the token on token-only auth routes (TOTP) but not on logout", async () => {
    const totp = await fetch(`${gateway.url}/api/v2/auth/totp`, { method: "POST" });
    expect(totp.status).to.equal(401);
    expect(service.received).to.have.length(0);
    const logout = await fetch(`${gateway.url}/api/v2/auth/logout`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ refresh_token: "opaque" }),
    });
    expect(service.received, "logout is proxied without a token").to.have.length(1);
    expect(logout.status).to.equal(404);
  });
});
