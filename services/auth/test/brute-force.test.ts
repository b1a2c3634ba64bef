import { pinIn, tokenIn } from "@docex/testkit";
import { expect } from "chai";
import { generate } from "otplib";
import { type Answer, AuthHarness, newAddress, newEmail } from "./support/auth-harness.js";

const PASSWORD = "brute force target";
const WRONG = "wrong password!!";
const ACCOUNT_LIMIT = 4;
const ACCOUNT_TOTAL_LIMIT = 8;
const ADDRESS_LIMIT = 10;
const WINDOW = 60;
const LOCKOUT_MAX = 150;

let ipv6Counter = 0;
/** A /64 no other test uses; `host` (the last four groups, e.g. "0:0:0:1") picks an address inside it. */
function newIpv6Network(): (host: string) => string {
  ipv6Counter += 1;
  return (host) => `2001:db8:${ipv6Counter.toString(16)}:${(ipv6Counter * 7).toString(16)}:${host}`;
}

/** The service's own count of credentials it verified (`auth_credential_checks_total{kind}` in /metrics). */
async function credentialChecks(auth: AuthHarness, kind: "password" | "totp"): Promise<number> {
  const text = await (await fetch(`${auth.baseUrl}/metrics`)).text();
  const line = text.split("\n").find((row) => row.startsWith("auth_credential_checks_total{") && row.includes(`kind="${kind}"`));
  if (!line) throw new Error(`no auth_credential_checks_total for ${kind} in /metrics`);
  return Number(line.split(" ").pop());
}

function countStatuses(answers: Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

async function enableTotp(auth: AuthHarness, email: string): Promise<string> {
  const accessToken = (await auth.onboard(email, PASSWORD)).tokens.body.data.access_token;
  const { secret } = (await auth.call("POST", "/auth/totp", { bearer: accessToken })).body.data;
  auth.clock.advance(30);
  const confirmed = await auth.call("POST", "/auth/totp/confirm", {
    bearer: accessToken,
    body: { code: await generate({ secret, epoch: auth.clock.nowSeconds() }) },
  });
  expect(confirmed.status).to.equal(204);
  auth.clock.advance(30);
  return secret;
}

describe("parallel login bursts: each attempt is counted before its credential is checked", () => {
  let auth: AuthHarness;

  // The defaults: 10 per account and address, 50 per account in all.
  before(async () => {
    auth = await AuthHarness.start();
  });

  after(async () => {
    await auth?.stop();
  });

  const burst = (count: number, send: (index: number) => Promise<Answer>) => Promise.all(Array.from({ length: count }, (_, i) => send(i)));

  it("verifies at most the limit of 200 parallel wrong passwords from one address; the rest are 429 before any hashing", async () => {
    const email = newEmail("race");
    await auth.onboard(email, PASSWORD);
    const address = newAddress();
    const before = await credentialChecks(auth, "password");
    const answers = await burst(200, (i) => auth.call("POST", "/auth/login", { body: { email, password: `wrong guess ${i}` }, address }));
    const verified = (await credentialChecks(auth, "password")) - before;
    const statuses = countStatuses(answers);
    expect(verified, "passwords verified").to.be.at.most(10);
    expect(statuses[401] ?? 0, "every 401 is a verified password").to.equal(verified);
    expect((statuses[401] ?? 0) + (statuses[429] ?? 0)).to.equal(200);
    for (const answer of answers.filter((a) => a.status === 429)) {
      expect(answer.body.code).to.equal("rate_limited");
      expect(Number(answer.headers.get("retry-after"))).to.be.greaterThan(0);
    }
    // Locked from that address, even for the right password; the owner elsewhere is not.
    expect((await auth.call("POST", "/auth/login", { body: { email, password: PASSWORD }, address })).status).to.equal(429);
    expect((await auth.call("POST", "/auth/login", { body: { email, password: PASSWORD }, address: newAddress() })).status).to.equal(200);
  });

  it("verifies at most the account's total of 200 parallel wrong passwords from 200 addresses", async () => {
    const email = newEmail("race-spread");
    const before = await credentialChecks(auth, "password");
    const answers = await burst(200, (i) =>
      auth.call("POST", "/auth/login", { body: { email, password: `guess ${i}` }, address: newAddress() }),
    );
    const verified = (await credentialChecks(auth, "password")) - before;
    expect(verified).to.be.at.most(50);
    expect(countStatuses(answers)[401] ?? 0).to.equal(verified);
  });

  it("checks at most the limit of parallel wrong TOTP codes sent with the right password", async () => {
    const email = newEmail("race-totp");
    const secret = await enableTotp(auth, email);
    const code = await generate({ secret, epoch: auth.clock.nowSeconds() });
    const address = newAddress();
    const before = await credentialChecks(auth, "totp");
    const answers = await burst(60, (i) => {
      const guess = String((Number(code) + 1 + i) % 1_000_000).padStart(6, "0");
      return auth.call("POST", "/auth/login", { body: { email, password: PASSWORD }, address, headers: { "x-totp": guess } });
    });
    const checked = (await credentialChecks(auth, "totp")) - before;
    expect(checked, "codes checked").to.be.at.most(10);
    const statuses = countStatuses(answers);
    expect(statuses[401] ?? 0).to.equal(checked);
    expect(statuses[429]).to.equal(60 - checked);
  });
});

describe("brute-force limits per account and address, per account, and per address", () => {
  let auth: AuthHarness;

  before(async () => {
    auth = await AuthHarness.start({
      AUTH_ACCOUNT_FAILURE_LIMIT: ACCOUNT_LIMIT,
      AUTH_ACCOUNT_FAILURE_WINDOW_SECONDS: WINDOW,
      AUTH_ACCOUNT_TOTAL_FAILURE_LIMIT: ACCOUNT_TOTAL_LIMIT,
      AUTH_ADDRESS_FAILURE_LIMIT: ADDRESS_LIMIT,
      AUTH_ADDRESS_FAILURE_WINDOW_SECONDS: WINDOW,
      AUTH_LOCKOUT_MAX_SECONDS: LOCKOUT_MAX,
      AUTH_MAIL_LIMIT_PER_ADDRESS: 3,
    });
  });

  after(async () => {
    await auth?.stop();
  });

  const login = (email: string, password: string, address = newAddress(), headers: Record<string, string> = {}) =>
    auth.call("POST", "/auth/login", { body: { email, password }, address, headers });

  async function failLogins(email: string, count: number, address: string): Promise<void> {
    for (let attempt = 0; attempt < count; attempt += 1) {
      expect((await login(email, WRONG, address)).status).to.equal(401);
    }
  }

  it("locks an account from one address after the limit, with Retry-After, while its owner logs in from another", async () => {
    const email = newEmail("locked");
    await auth.onboard(email, PASSWORD);
    const attacker = newAddress();
    await failLogins(email, ACCOUNT_LIMIT, attacker);
    const locked = await login(email, PASSWORD, attacker);
    expect(locked.status).to.equal(429);
    expect(locked.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(locked.body.code).to.equal("rate_limited");
    expect(Number(locked.headers.get("retry-after"))).to.be.within(WINDOW - 2, WINDOW);

    expect((await login(email, PASSWORD, newAddress())).status).to.equal(200);
    auth.clock.advance(WINDOW + 1);
    expect((await login(email, PASSWORD, attacker)).status).to.equal(200);
  });

  it("gives a successful login's attempt back and clears that address's failures of the account", async () => {
    const email = newEmail("owner-typos");
    await auth.onboard(email, PASSWORD);
    const address = newAddress();
    await failLogins(email, ACCOUNT_LIMIT - 1, address);
    expect((await login(email, PASSWORD, address)).status).to.equal(200);
    await failLogins(email, ACCOUNT_LIMIT - 1, address);
    expect((await login(email, PASSWORD, address)).status).to.equal(200);
  });

  it("locks the account from every address once failures from many reach the account's total", async () => {
    const email = newEmail("spread");
    await auth.onboard(email, PASSWORD);
    for (let address = 0; address < ACCOUNT_TOTAL_LIMIT / 2; address += 1) await failLogins(email, 2, newAddress());
    const locked = await login(email, PASSWORD, newAddress());
    expect(locked.status).to.equal(429);
    expect(Number(locked.headers.get("retry-after"))).to.be.within(WINDOW - 2, WINDOW);
    auth.clock.advance(WINDOW + 1);
    expect((await login(email, PASSWORD, newAddress())).status).to.equal(200);
  });

  it(`doubles a repeated lockout, but never beyond AUTH_LOCKOUT_MAX_SECONDS (${LOCKOUT_MAX})`, async () => {
    const email = newEmail("doubling");
    await auth.onboard(email, PASSWORD);
    const attacker = newAddress();
    const waits: number[] = [];
    for (let round = 0; round < 4; round += 1) {
      await failLogins(email, ACCOUNT_LIMIT, attacker);
      const locked = await login(email, PASSWORD, attacker);
      expect(locked.status).to.equal(429);
      waits.push(Number(locked.headers.get("retry-after")));
      auth.clock.advance(waits.at(-1)! + 1);
    }
    expect(waits[0]).to.be.within(WINDOW - 2, WINDOW);
    expect(waits[1]).to.be.within(2 * WINDOW - 2, 2 * WINDOW);
    expect(waits[2]).to.be.within(LOCKOUT_MAX - 2, LOCKOUT_MAX);
    expect(waits[3]).to.be.within(LOCKOUT_MAX - 2, LOCKOUT_MAX);
  });

  it("limits unknown emails the same way, so the limit tells nothing about registration", async () => {
    const ghost = newEmail("ghost");
    const address = newAddress();
    await failLogins(ghost, ACCOUNT_LIMIT, address);
    expect((await login(ghost, WRONG, address)).status).to.equal(429);
  });

  it("limits one client address across many accounts", async () => {
    const address = newAddress();
    for (let attempt = 0; attempt < ADDRESS_LIMIT; attempt += 1) {
      expect((await login(newEmail("spray"), WRONG, address)).status).to.equal(401);
    }
    const email = newEmail("innocent");
    await auth.onboard(email, PASSWORD);
    expect((await login(email, PASSWORD, address)).status).to.equal(429);
    expect((await login(email, PASSWORD, newAddress())).status).to.equal(200);
  });

  it("counts IPv6 addresses by their /64, for the account and for the address", async () => {
    const email = newEmail("ipv6");
    await auth.onboard(email, PASSWORD);
    const network = newIpv6Network();
    for (let host = 1; host <= ACCOUNT_LIMIT; host += 1) {
      expect((await login(email, WRONG, network(`0:0:0:${host}`))).status).to.equal(401);
    }
    expect((await login(email, PASSWORD, network("ffff:ffff:ffff:fffe"))).status).to.equal(429);
    expect((await login(email, PASSWORD, newIpv6Network()("0:0:0:1"))).status).to.equal(200);

    const sprayer = newIpv6Network();
    for (let host = 1; host <= ADDRESS_LIMIT; host += 1) {
      expect((await login(newEmail("ipv6-spray"), WRONG, sprayer(`${host.toString(16)}:0:0:1`))).status).to.equal(401);
    }
    expect((await login(email, PASSWORD, sprayer("abcd:0:0:9"))).status).to.equal(429);
  });

  it("keeps magic links and password resets working while password logins of the account are locked everywhere", async () => {
    const email = newEmail("victim");
    await auth.onboard(email, PASSWORD);
    for (let address = 0; address < ACCOUNT_TOTAL_LIMIT / 2; address += 1) await failLogins(email, 2, newAddress());
    const owner = newAddress();
    expect((await login(email, PASSWORD, owner)).status).to.equal(429);

    const mails = auth.smtp.mailsTo(email).length;
    expect((await auth.call("POST", "/auth/magic-link", { body: { email }, address: owner })).status).to.equal(202);
    const magic = tokenIn(await auth.smtp.waitForMail(email, mails + 1));
    const magicLogin = await auth.call("POST", "/auth/magic-login", { body: { token: magic }, address: owner });
    expect(magicLogin.status).to.equal(200);

    expect((await auth.call("POST", "/auth/password-reset", { body: { email }, address: owner })).status).to.equal(202);
    const reset = tokenIn(await auth.smtp.waitForMail(email, mails + 2));
    const changed = await auth.call("POST", "/auth/change-password", {
      body: { token: reset, password: "a brand new password" },
      address: owner,
    });
    expect(changed.status).to.equal(200);
  });

  it("limits wrong TOTP codes on the recovery paths on their own, without using up the mailed token", async () => {
    const email = newEmail("recovery-totp");
    const secret = await enableTotp(auth, email);
    const mails = auth.smtp.mailsTo(email).length;
    expect((await auth.call("POST", "/auth/magic-link", { body: { email }, address: newAddress() })).status).to.equal(202);
    const token = tokenIn(await auth.smtp.waitForMail(email, mails + 1));
    const code = await generate({ secret, epoch: auth.clock.nowSeconds() });
    const wrong = code === "000000" ? "111111" : "000000";
    for (let attempt = 0; attempt < ACCOUNT_LIMIT; attempt += 1) {
      const answer = await auth.call("POST", "/auth/magic-login", { body: { token }, address: newAddress(), headers: { "x-totp": wrong } });
      expect(answer.status).to.equal(401);
      expect(answer.body.code).to.equal("totp_required");
    }
    const limited = await auth.call("POST", "/auth/magic-login", { body: { token }, address: newAddress(), headers: { "x-totp": code } });
    expect(limited.status).to.equal(429);
    // The password login of the account is a separate count: still open.
    expect((await login(email, PASSWORD, newAddress(), { "x-totp": code })).status).to.equal(200);
    auth.clock.advance(WINDOW + 1);
    const later = await generate({ secret, epoch: auth.clock.nowSeconds() });
    const after = await auth.call("POST", "/auth/magic-login", { body: { token }, address: newAddress(), headers: { "x-totp": later } });
    expect(after.status).to.equal(200);
  });

  it("limits unknown mailed tokens per address on the recovery count, apart from password logins", async () => {
    const email = newEmail("token-spray");
    await auth.onboard(email, PASSWORD);
    const address = newAddress();
    for (let attempt = 0; attempt < ADDRESS_LIMIT; attempt += 1) {
      const answer = await auth.call("POST", "/auth/magic-login", { body: { token: `made-up-token-${attempt}` }, address });
      expect(answer.status).to.equal(401);
    }
    const limited = await auth.call("POST", "/auth/change-password", {
      body: { token: "made-up", password: "whatever password" },
      address,
    });
    expect(limited.status).to.equal(429);
    expect((await login(email, PASSWORD, address)).status).to.equal(200);
  });

  it("counts wrong onboarding PINs against the account from that address", async () => {
    const email = newEmail("pin-brute");
    const address = newAddress();
    await auth.call("POST", "/auth/register", { body: { email, phone: "1", ui_locale: "en" }, address });
    const pin = pinIn(await auth.smtp.waitForMail(email));
    const wrong = pin === "000000" ? "111111" : "000000";
    for (let attempt = 0; attempt < ACCOUNT_LIMIT; attempt += 1) {
      const answer = await auth.call("POST", "/auth/verify-onboarding-pin", { body: { email, pin: wrong }, address });
      expect(answer.status).to.equal(401);
    }
    const limited = await auth.call("POST", "/auth/verify-onboarding-pin", { body: { email, pin }, address });
    expect(limited.status).to.equal(429);
  });

  it("counts wrong TOTP codes against the account from that address", async () => {
    const email = newEmail("totp-brute");
    const secret = await enableTotp(auth, email);
    const code = await generate({ secret, epoch: auth.clock.nowSeconds() });
    const wrong = code === "000000" ? "111111" : "000000";
    const address = newAddress();
    for (let attempt = 0; attempt < ACCOUNT_LIMIT; attempt += 1) {
      expect((await login(email, PASSWORD, address, { "x-totp": wrong })).status).to.equal(401);
    }
    expect((await login(email, PASSWORD, address, { "x-totp": code })).status).to.equal(429);
  });

  it("does not count a right password sent without the TOTP code it needs", async () => {
    const email = newEmail("totp-missing");
    await enableTotp(auth, email);
    const address = newAddress();
    for (let attempt = 0; attempt < ACCOUNT_LIMIT + 2; attempt += 1) {
      const answer = await login(email, PASSWORD, address);
      expect(answer.status).to.equal(401);
      expect(answer.body.code).to.equal("totp_required");
    }
  });

  const attempts = (recipient: string) =>
    auth.events.events.filter((e) => e.event.type === "auth.login_attempted" && e.event.data.email === recipient);

  it("publishes every login that reaches its credential, once, for the audit log, and none the throttle blocked", async () => {
    const email = newEmail("audited");
    const { userId } = await auth.onboard(email, PASSWORD);
    await auth.events.waitFor(() => attempts(email).length === 1); // onboarding's first login
    const unknown = newEmail("nobody");
    expect((await login(email, WRONG, newAddress(), { "x-request-id": "req-audit-1" })).status).to.equal(401);
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
    const address = newAddress();
    await failLogins(locked, ACCOUNT_LIMIT, address);
    expect((await login(locked, WRONG, address)).status).to.equal(429);
    expect((await login(locked, PASSWORD, address)).status).to.equal(429);
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
