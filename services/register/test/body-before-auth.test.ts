import { rawRequest } from "@docex/testkit";
import { expect } from "chai";
import { type Member, RegisterHarness } from "./support/register-harness.js";

describe("POST /registers refuses compressed and unauthenticated bodies before reading them (issue 24)", () => {
  let harness: RegisterHarness;
  let owner: Member;

  before(async () => {
    harness = await RegisterHarness.start();
    owner = harness.member(harness.organization(), "owner");
  });

  after(async () => {
    await harness?.stop();
  });

  const head = (headers: Record<string, string | number>) =>
    `POST /api/v2/registers HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n${Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("")}\r\n`;

  it("answers a brotli body with 415 without waiting for (let alone inflating) a byte of it", async () => {
    const { text, closed } = await rawRequest(
      harness.baseUrl,
      head({ authorization: `Bearer ${owner.token}`, "content-encoding": "br", "content-length": 152 }),
    );
    expect(text).to.match(/^HTTP\/1\.1 415 /);
    expect(text).to.include('"code":"unsupported_content_encoding"');
    expect(closed).to.equal(true);
  });

  it("answers an unauthenticated 50 MiB body with 401 before reading it, and closes the connection", async () => {
    for (const authorization of [undefined, "Bearer not.a.token"]) {
      const headers: Record<string, string | number> = { "content-length": 50 * 1024 * 1024 - 1 };
      if (authorization) headers.authorization = authorization;
      const { text, closed } = await rawRequest(harness.baseUrl, head(headers));
      expect(text, String(authorization)).to.match(/^HTTP\/1\.1 401 /);
      expect(closed).to.equal(true);
    }
  });
});
