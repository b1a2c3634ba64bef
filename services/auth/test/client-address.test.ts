import { expect } from "chai";
import { AuthHarness, newAddress, newEmail } from "./support/auth-harness.js";

const ADDRESS_LIMIT = 5;

describe("login throttles count the gateway's signed client address, never X-Forwarded-For (issue 39)", () => {
  let auth: AuthHarness;

  before(async () => {
    auth = await AuthHarness.start({
      AUTH_ACCOUNT_FAILURE_LIMIT: 50,
      AUTH_ACCOUNT_TOTAL_FAILURE_LIMIT: 100,
      AUTH_ADDRESS_FAILURE_LIMIT: ADDRESS_LIMIT,
      AUTH_ADDRESS_FAILURE_WINDOW_SECONDS: 60,
    });
  });

  after(async () => {
    await auth?.stop();
  });

  const wrongLogin = (headers: Record<string, string>, address?: string) =>
    auth.call("POST", "/auth/login", { body: { email: newEmail("rotating"), password: "not the password" }, headers, address });

  it("limits a direct caller that rotates X-Forwarded-For and an unsigned docex-client-address as the one peer it is", async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt <= ADDRESS_LIMIT; attempt += 1) {
      const forged = { "x-forwarded-for": newAddress(), "docex-client-address": newAddress(), "x-real-ip": newAddress() };
      statuses.push((await wrongLogin(forged)).status);
    }
    expect(statuses.slice(0, ADDRESS_LIMIT)).to.deep.equal(Array(ADDRESS_LIMIT).fill(401));
    expect(statuses[ADDRESS_LIMIT], "the attempt past the per-address limit").to.equal(429);
  });

  it("counts each signed address on its own, so the limit above is the peer's and not a global one", async () => {
    for (let attempt = 0; attempt <= ADDRESS_LIMIT; attempt += 1) {
      expect((await wrongLogin({}, newAddress())).status).to.equal(401);
    }
  });
});
