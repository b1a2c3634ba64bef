import { TestIssuer } from "@docex/testkit";
import { expect } from "chai";
import { jwksAnswers } from "../src/jwks-check.js";
import { closedPortUrl, EchoService, type RunningGateway, startGateway } from "./harness.js";

const user = { sub: "0d7e6c5b-4a39-4281-9f0e-d1c2b3a49586" };

interface Problem {
  status: number;
  code: string;
  request_id: string;
}

describe("gateway when a service is down or slow, and under load", () => {
  let issuer: TestIssuer;
  let service: EchoService;
  let token: string;
  const gateways: RunningGateway[] = [];

  before(async () => {
    issuer = await TestIssuer.start();
    service = await EchoService.start(issuer);
    token = issuer.mint(user);
  });

  afterEach(async () => {
    service.slowDelayMs = 0;
    await Promise.all(gateways.splice(0).map((gateway) => gateway.stop()));
  });

  after(async () => {
    await service?.stop();
    await issuer?.stop();
  });

  const start = async (options: Omit<Parameters<typeof startGateway>[0], "issuer" | "upstreamUrl"> = {}) => {
    const gateway = await startGateway({ issuer, upstreamUrl: service.url, ...options });
    gateways.push(gateway);
    return gateway;
  };

  it("answers 503 problem+json with the request id when the service refuses connections", async () => {
    const gateway = await start({ urls: { document: await closedPortUrl() } });
    const response = await fetch(`${gateway.url}/api/v2/queues/q1`, {
      headers: { authorization: `Bearer ${token}`, "x-request-id": "req-down" },
    });
    expect(response.status).to.equal(503);
    expect(response.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(await response.json()).to.include({ status: 503, code: "service_unavailable", request_id: "req-down" });
  });

  it("still serves the routes of services that are up when another one is down", async () => {
    const gateway = await start({ urls: { webhook: await closedPortUrl() } });
    const response = await fetch(`${gateway.url}/api/v2/queues/q1`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).to.equal(200);
    const webhooks = await fetch(`${gateway.url}/api/v2/queues/q1/webhooks`, { headers: { authorization: `Bearer ${token}` } });
    expect(webhooks.status).to.equal(503);
  });

  it("answers 502 problem+json when the service drops the connection without an answer", async () => {
    const gateway = await start();
    const response = await fetch(`${gateway.url}/api/v2/workspaces/w1`, {
      headers: { authorization: `Bearer ${token}`, "x-request-id": "req-reset" },
    });
    expect(response.status).to.equal(502);
    expect(await response.json()).to.include({ status: 502, code: "bad_gateway", request_id: "req-reset" });
  });

  it("answers 504 problem+json when the service is slower than the upstream timeout", async () => {
    const gateway = await start({ upstreamTimeoutMs: 200 });
    service.slowDelayMs = 2_000;
    const started = Date.now();
    const response = await fetch(`${gateway.url}/api/v2/documents/d1`, {
      headers: { authorization: `Bearer ${token}`, "x-request-id": "req-slow" },
    });
    expect(response.status).to.equal(504);
    expect(Date.now() - started).to.be.lessThan(1_500);
    expect(await response.json()).to.include({ status: 504, code: "gateway_timeout", request_id: "req-slow" });
  });

  it("answers a fast request normally with the same short timeout", async () => {
    const gateway = await start({ upstreamTimeoutMs: 200 });
    const response = await fetch(`${gateway.url}/api/v2/documents/d1`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).to.equal(200);
  });

  it("limits requests per client address with 429 problem+json and Retry-After", async () => {
    const gateway = await start({ rateLimitPerMinute: 3 });
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await fetch(`${gateway.url}/api/v2/queues/q1`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).to.equal(200);
    }
    const limited = await fetch(`${gateway.url}/api/v2/queues/q1`, {
      headers: { authorization: `Bearer ${token}`, "x-request-id": "req-429" },
    });
    expect(limited.status).to.equal(429);
    expect(limited.headers.get("content-type")).to.match(/^application\/problem\+json/);
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).to.be.within(1, 60);
    const problem = (await limited.json()) as Problem;
    expect(problem).to.include({ status: 429, code: "rate_limited", request_id: "req-429" });
    const health = await fetch(`${gateway.url}/healthz`);
    expect(health.status, "probes are not rate limited").to.equal(200);
  });

  it("stays ready when the auth JWKS does not answer, and reports it as a dependency down (issue 20, item 2)", async () => {
    const up = await start({ configure: (deps) => deps.readiness.watch("auth_jwks", () => jwksAnswers(issuer.jwksUri)) });
    const upReport = (await (await fetch(`${up.url}/readyz`)).json()) as { dependencies: Record<string, string> };
    expect(upReport.dependencies).to.deep.equal({ auth_jwks: "ok" });
    const deadJwks = `${await closedPortUrl()}/api/v2/auth/.well-known/jwks.json`;
    const down = await start({ configure: (deps) => deps.readiness.watch("auth_jwks", () => jwksAnswers(deadJwks)) });
    const response = await fetch(`${down.url}/readyz`);
    expect(response.status).to.equal(200);
    const report = (await response.json()) as { status: string; dependencies: Record<string, string> };
    expect(report.status).to.equal("ready");
    expect(report.dependencies.auth_jwks).to.not.equal("ok");
  });
});
