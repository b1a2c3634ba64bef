import { TestIssuer } from "@docex/testkit";
import { expect } from "chai";
import { cappedTraceState, TRACESTATE_MAX_LENGTH, TRACESTATE_MAX_MEMBERS } from "../src/trace-headers.js";
import { EchoService, type RunningGateway, startGateway } from "./harness.js";

const user = { sub: "3f1c2a4e-7d1b-4c55-9a0e-1a2b3c4d5e6f", email: "ada@example.test" };

describe("the client's trace headers at the gateway (issue 39, item 10)", () => {
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

  const forwarded = async (headers: Record<string, string>) => {
    const response = await fetch(`${gateway.url}/api/v2/queues/q1`, {
      headers: { authorization: `Bearer ${issuer.mint(user)}`, ...headers },
    });
    expect(response.status).to.equal(200);
    return ((await response.json()) as { data: { headers: Record<string, string | undefined> } }).data.headers;
  };

  it("drops the client's baggage before it reaches the service, and passes a tracestate within the limits as it is", async () => {
    const headers = await forwarded({ baggage: "user.id=someone-else,tenant=other", tracestate: "vendor=abc,other@tenant=1" });
    expect(headers).to.not.have.property("baggage");
    expect(headers.tracestate).to.equal("vendor=abc,other@tenant=1");
  });

  it("passes at most 32 tracestate members and 512 characters, and no member that is not one", async () => {
    const forty = Array.from({ length: 40 }, (_, n) => `k${n}=v${n}`).join(",");
    const members = (await forwarded({ tracestate: forty })).tracestate!.split(",");
    expect(members).to.have.length(TRACESTATE_MAX_MEMBERS);
    expect(members[0]).to.equal("k0=v0");
    expect(members.at(-1)).to.equal("k31=v31");

    const long = Array.from({ length: 10 }, (_, n) => `key${n}=${"x".repeat(100)}`).join(",");
    const capped = (await forwarded({ tracestate: long })).tracestate!;
    expect(capped.length).to.be.at.most(TRACESTATE_MAX_LENGTH);
    expect(capped.split(",")).to.have.length(4);

    expect(await forwarded({ tracestate: "NOT A MEMBER,=x,ok=1" })).to.include({ tracestate: "ok=1" });
    expect(await forwarded({ tracestate: " , ,Bad=1" })).to.not.have.property("tracestate");
  });

  it("caps a tracestate without a request: members in order, the invalid and the ones that do not fit left out", () => {
    expect(cappedTraceState(undefined)).to.equal(undefined);
    expect(cappedTraceState(`a=${"y".repeat(255)},b=1,c=${"z".repeat(255)},d=2`)).to.equal(`a=${"y".repeat(255)},b=1,d=2`);
  });
});
