import { TestIssuer } from "@docex/testkit";
import { expect } from "chai";
import { EchoService, type RunningGateway, startGateway } from "./harness.js";

describe("client address: X-Forwarded-For only from trusted proxies, IPv6 limited per /64 (issue 24)", () => {
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
});
