import { CLIENT_ADDRESS_HEADER, CLIENT_ADDRESS_PROOF_HEADER, ClientAddressSigner, GATEWAY_CERTIFICATE_HEADER } from "@docex/kit/http";
import { TestIssuer, testGrpcIdentity } from "@docex/testkit";
import { expect } from "chai";
import { EchoService, type RunningGateway, startGateway } from "./harness.js";

describe("client address: X-Forwarded-For only from trusted proxies, IPv6 limited per /64 (issue 24), passed on signed (issue 39)", () => {
  let issuer: TestIssuer;
  let service: EchoService;
  const gateways: RunningGateway[] = [];

  before(async () => {
    issuer = await TestIssuer.start();
    service = await EchoService.start(issuer);
  });

  after(async () => {
    for (const gateway of gateways) await gateway.stop();
    await service?.stop();
    await issuer?.stop();
  });

  const statusFrom = async (gateway: RunningGateway, forwardedFor: string) => {
    const response = await fetch(`${gateway.url}/api/v2/auth/.well-known/jwks.json`, { headers: { "x-forwarded-for": forwardedFor } });
    await response.arrayBuffer();
    return response.status;
  };

  it("counts IPv6 clients per /64 behind a trusted proxy (loopback by default)", async () => {
    const gateway = await startGateway({ issuer, upstreamUrl: service.url, rateLimitPerMinute: 2 });
    gateways.push(gateway);
    expect(await statusFrom(gateway, "2001:db8:1:2::1")).to.not.equal(429);
    expect(await statusFrom(gateway, "2001:db8:1:2:ffff::9")).to.not.equal(429);
    expect(await statusFrom(gateway, "2001:db8:1:2:abcd::7"), "a third address of the same /64").to.equal(429);
    expect(await statusFrom(gateway, "2001:db8:1:3::1"), "another /64").to.not.equal(429);
    expect(await statusFrom(gateway, "192.0.2.10")).to.not.equal(429);
  });

  it("ignores X-Forwarded-For from a peer that is not a trusted proxy", async () => {
    const gateway = await startGateway({
      issuer,
      upstreamUrl: service.url,
      rateLimitPerMinute: 2,
      configure: (deps) => {
        deps.trustedProxies = ["10.0.0.0/8"];
      },
    });
    gateways.push(gateway);
    expect(await statusFrom(gateway, "192.0.2.1")).to.not.equal(429);
    expect(await statusFrom(gateway, "192.0.2.2")).to.not.equal(429);
    expect(await statusFrom(gateway, "192.0.2.3"), "all counted as the loopback peer").to.equal(429);
  });

  /** What the auth route behind the gateway saw: the address it believes, and the address headers it got. */
  const loginThrough = async (gateway: RunningGateway, headers: Record<string, string>) => {
    const received = service.received.length;
    const response = await fetch(`${gateway.url}/api/v2/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ email: "someone@example.test", password: "whatever" }),
    });
    expect(response.status).to.equal(200);
    const seen = ((await response.json()) as { data: { client_address: string } }).data.client_address;
    return { seen, headers: service.received[received]?.headers ?? {} };
  };

  it("passes the client address a trusted proxy forwarded to the service, signed, and no X-Forwarded-For", async () => {
    const gateway = await startGateway({ issuer, upstreamUrl: service.url });
    gateways.push(gateway);
    const { seen, headers } = await loginThrough(gateway, { "x-forwarded-for": "198.51.100.1, 203.0.113.5" });
    expect(seen, "the right-most address the loopback proxy added").to.equal("203.0.113.5");
    expect(headers[CLIENT_ADDRESS_HEADER]).to.equal("203.0.113.5");
    expect(headers[CLIENT_ADDRESS_PROOF_HEADER]).to.be.a("string");
    expect(headers["x-forwarded-for"], "the service gets no X-Forwarded-For to misread").to.equal(undefined);
  });

  it("honours GATEWAY_TRUSTED_PROXIES: from another peer X-Forwarded-For is ignored and the peer's address goes on", async () => {
    const gateway = await startGateway({
      issuer,
      upstreamUrl: service.url,
      configure: (deps) => {
        deps.trustedProxies = ["10.0.0.0/8"];
      },
    });
    gateways.push(gateway);
    expect((await loginThrough(gateway, { "x-forwarded-for": "203.0.113.5" })).seen).to.equal("127.0.0.1");
  });

  it("drops a client's own client-address headers, even a proof signed for another request, and sends its own", async () => {
    const gateway = await startGateway({ issuer, upstreamUrl: service.url });
    gateways.push(gateway);
    const stolen = Object.fromEntries(new ClientAddressSigner(testGrpcIdentity("gateway")).headersFor("auth", "192.0.2.99"));
    const { seen, headers } = await loginThrough(gateway, { ...stolen, "x-real-ip": "192.0.2.98", forwarded: "for=192.0.2.97" });
    expect(seen).to.equal("127.0.0.1");
    expect(headers[CLIENT_ADDRESS_HEADER]).to.equal("127.0.0.1");
    expect(headers[GATEWAY_CERTIFICATE_HEADER]).to.be.a("string");
    expect(headers["x-real-ip"]).to.equal(undefined);
    expect(headers.forwarded).to.equal(undefined);
  });
});
