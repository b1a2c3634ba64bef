import { pinIn } from "@docex/testkit";
import { expect } from "chai";
import { generate } from "otplib";
import { AuthHarness, newAddress, newEmail } from "./support/auth-harness.js";

const PASSWORD = "brute force target";
const ACCOUNT_LIMIT = 4;
const ADDRESS_LIMIT = 8;
const WINDOW = 60;

describe("brute-force limits per account and per client address", () => {
  let auth: AuthHarness;

  before(async () => {
    auth = await AuthHarness.start({
      AUTH_ACCOUNT_FAILURE_LIMIT: ACCOUNT_LIMIT,
      AUTH_ACCOUNT_FAILURE_WINDOW_SECONDS: WINDOW,
      AUTH_ADDRESS_FAILURE_LIMIT: ADDRESS_LIMIT,
      AUTH_ADDRESS_FAILURE_WINDOW_SECONDS: WINDOW,
      AUTH_MAIL_LIMIT_PER_ADDRESS: 3,
    });
  });

  after(async () => {
    await auth?.stop();
  });

  const login = (email: string, password: string, address = newAddress(), headers: Record<string, string> = {}) =>
    auth.call("POST", "/auth/login", { body: { email, password }, address, headers });

  async function failLogins(email: string, count: number): Promise<void> {
    for (let attempt = 0; attempt < count; attempt += 1) {
      expect((await login(email, "wrong password!!")).status).to.equal(401);
    }
  }

  it("locks an account after the limit of failures, even for the right password, with Retry-After", async () => {
    const email = newEmail("locked");
    await auth.onboard(email, PASSWORD);
    await failLogins(email, ACCOUNT_LIMIT);
    const locked = await login(email, PASSWORD);
    expect(locked.status).to.equal(429);
    expect(locked.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(locked.body.code).to.equal("rate_limited");
    expect(Number(locked.headers.get("retry-after"))).to.be.within(WINDOW - 2, WINDOW);

    auth.clock.advance(WINDOW + 1);
    expect((await login(email, PASSWORD)).status).to.equal(200);
  });

  it("doubles the lockout when failures go on after one", async () => {
    const email = newEmail("doubling");
    await auth.onboard(email, PASSWORD);
    await failLogins(email, ACCOUNT_LIMIT);
    expect(Number((await login(email, PASSWORD)).headers.get("retry-after"))).to.be.within(WINDOW - 2, WINDOW);
    auth.clock.advance(WINDOW + 1);
    await failLogins(email, ACCOUNT_LIMIT);
    const again = await login(email, PASSWORD);
    expect(again.status).to.equal(429);
    expect(Number(again.headers.get("retry-after"))).to.be.within(2 * WINDOW - 2, 2 * WINDOW);
  });

  it("limits unknown emails the same way, so the limit tells nothing about registration", async () => {
    const ghost = newEmail("ghost");
    await failLogins(ghost, ACCOUNT_LIMIT);
    expect((await login(ghost, "wrong password!!")).status).to.equal(429);
  });

  it("limits one client address across many accounts", async () => {
    const address = newAddress();
    for (let attempt = 0; attempt < ADDRESS_LIMIT; attempt += 1) {
      expect((await login(newEmail("spray"), "wrong password!!", address)).status).to.equal(401);
    }
    const email = newEmail("innocent");
    await auth.onboard(email, PASSWORD);
    expect((await login(email, PASSWORD, address)).status).to.equal(429);
    expect((await login(email, PASSWORD, newAddress())).status).to.equal(200);
  });

  it("counts wrong onboarding PINs against the account", async () => {
    const email = newEmail("pin-brute");
    await auth.call("POST", "/auth/register", { body: { email, phone: "1", ui_locale: "en" }, address: newAddress() });
    const pin = pinIn(await auth.smtp.waitForMail(email));
    const wrong = pin === "000000" ? "111111" : "000000";
    for (let attempt = 0; attempt < ACCOUNT_LIMIT; attempt += 1) {
      const answer = await auth.call("POST", "/auth/verify-onboarding-pin", { body: { email, pin: wrong }, address: newAddress() });
      expect(answer.status).to.equal(401);
    }
    const limited = await auth.call("POST", "/auth/verify-onboarding-pin", { body: { email, pin }, address: newAddress() });
    expect(limited.status).to.equal(429);
  });

  it("counts wrong TOTP codes against the account", async () => {
    const email = newEmail("totp-brute");
    const accessToken = (await auth.onboard(email, PASSWORD)).tokens.body.data.access_token;
    const { secret } = (await auth.call("POST", "/auth/totp", { bearer: accessToken })).body.data;
    auth.clock.advance(30);
    await auth.call("POST", "/auth/totp/confirm", {
      bearer: accessToken,
      body: { code: await generate({ secret, epoch: auth.clock.nowSeconds() }) },
    });
    auth.clock.advance(30);
    const code = await generate({ secret, epoch: auth.clock.nowSeconds() });
    const wrong = code === "000000" ? "111111" : "000000";
    for (let attempt = 0; attempt < ACCOUNT_LIMIT; attempt += 1) {
      expect((await login(email, PASSWORD, newAddress(), { "x-totp": wrong })).status).to.equal(401);
    }
    expect((await login(email, PASSWORD, newAddress(), { "x-totp": code })).status).to.equal(429);
  });

  const attempts = (recipient: string) =>
    auth.events.events.filter((e) => e.event.type === "auth.login_attempted" && e.event.data.email === recipient);

  it("publishes every login that reaches its credential, once, for the audit log, and none the throttle blocked", async () => {
    const email = newEmail("audited");
    const { userId } = await auth.onboard(email, PASSWORD);
    await auth.events.waitFor(() => attempts(email).length === 1); // onboarding's first login
    const unknown = newEmail("nobody");
    expect((await login(email, "wrong password!!", newAddress(), { "x-request-id": "req-audit-1" })).status).to.equal(401);
    expect((await login(unknown, PASSWORD)).status).to.equal(401);
    expect((await login(email, PASSWORD, newAddress(), { "x-request-id": "req-audit-2" })).status).to.equal(200);

    const success = await auth.events.waitFor((e) => e.event.type === "auth.login_attempted" && e.event.request_id === "req-audit-2");
    expect(success.event.data).to.deep.equal({ user_id: userId, email, method: "pwd", succeeded: true, failure: null });
    expect(success.event).to.include({ organization_id: null, actor_user_id: userId });
    const failure = await auth.events.waitFor((e) => e.event.type === "auth.login_attempted" && e.event.request_id === "req-audit-1");
    expect(failure.event.data).to.deep.equal({ user_id: userId, email, method: "pwd", succeeded: false, failure: "invalid_credentials" });
    expect(failure.raw).to.not.include("wrong password");
    const stranger = await auth.events.waitFor((e) => e.event.type === "auth.login_attempted" && e.event.data.email === unknown);
    expect(stranger.event.data).to.include({ user_id: null, succeeded: false });
    expect(attempts(email)).to.have.length(3);

    // Locked out: the blocked attempts publish nothing.
    const locked = newEmail("audited-locked");
    await auth.onboard(locked, PASSWORD);
    await auth.events.waitFor(() => attempts(locked).length === 1);
    await failLogins(locked, ACCOUNT_LIMIT);
    expect((await login(locked, "wrong password!!")).status).to.equal(429);
    expect((await login(locked, PASSWORD)).status).to.equal(429);
    await auth.events.waitFor(() => attempts(locked).length >= 1 + ACCOUNT_LIMIT);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(attempts(locked)).to.have.length(1 + ACCOUNT_LIMIT);
  });

  it("limits mail requests per client address with 429, whether the emails exist or not", async () => {
    const address = newAddress();
    for (let request = 0; request < 3; request += 1) {
      const answer = await auth.call("POST", "/auth/magic-link", { body: { email: newEmail("mail-spray") }, address });
      expect(answer.status).to.equal(202);
    }
    const limited = await auth.call("POST", "/auth/password-reset", { body: { email: newEmail("mail-spray") }, address });
    expect(limited.status).to.equal(429);
    expect(Number(limited.headers.get("retry-after"))).to.be.greaterThan(0);
  });
});
