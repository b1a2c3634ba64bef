import { tokenIn } from "@docex/testkit";
import { expect } from "chai";
import { generate } from "otplib";
import { AuthHarness, newAddress, newEmail } from "./support/auth-harness.js";

const PASSWORD = "two factor password";

describe("TOTP and trusted sources", () => {
  let auth: AuthHarness;

  before(async () => {
    auth = await AuthHarness.start();
  });

  after(async () => {
    await auth?.stop();
  });

  /** Moves the service's clock to the middle of the next 30 s step, far from either edge. */
  const nextStep = () => auth.clock.advance(30 - (auth.clock.nowSeconds() % 30) + 15);

  /** The code an authenticator app shows in the next time step. */
  const nextCode = async (secret: string) => {
    nextStep();
    return generate({ secret, epoch: auth.clock.nowSeconds() });
  };

  const login = (email: string, headers: Record<string, string> = {}, password = PASSWORD) =>
    auth.call("POST", "/auth/login", { body: { email, password }, headers, address: newAddress() });

  /** A user with TOTP on; answers the secret and an access token from before TOTP (amr pwd only). */
  async function userWithTotp(label: string) {
    const email = newEmail(label);
    const { tokens } = await auth.onboard(email, PASSWORD);
    const accessToken = tokens.body.data.access_token;
    const setup = await auth.call("POST", "/auth/totp", { bearer: accessToken });
    expect(setup.status).to.equal(200);
    const { secret, otpauth_uri: uri } = setup.body.data;
    expect(uri).to.match(/^otpauth:\/\/totp\/docex:/);
    expect(uri).to.include(`secret=${secret}`);
    const confirmed = await auth.call("POST", "/auth/totp/confirm", { bearer: accessToken, body: { code: await nextCode(secret) } });
    expect(confirmed.status).to.equal(204);
    return { email, secret, accessToken };
  }

  it("requires a code once TOTP is on: missing or wrong is 401 totp_required, a right one logs in with amr otp", async () => {
    const { email, secret } = await userWithTotp("totp-login");
    const missing = await login(email);
    expect(missing.status).to.equal(401);
    expect(missing.body.code).to.equal("totp_required");

    const code = await nextCode(secret);
    const wrong = await login(email, { "x-totp": code === "123456" ? "654321" : "123456" });
    expect(wrong.status).to.equal(401);
    expect(wrong.body.code).to.equal("totp_required");

    const right = await login(email, { "x-totp": code });
    expect(right.status).to.equal(200);
    expect(right.body.data.otp_trusted_source).to.be.a("string");
    expect((await auth.verifier().verify(right.body.data.access_token)).amr).to.deep.equal(["pwd", "otp"]);

    const replayed = await login(email, { "x-totp": code });
    expect(replayed.status).to.equal(401);
    expect(replayed.body.code).to.equal("totp_required");
  });

  it("accepts a code one step old or one step ahead, and nothing further", async () => {
    const { email, secret } = await userWithTotp("totp-drift");
    nextStep();
    nextStep();
    nextStep();
    const now = auth.clock.nowSeconds();
    expect((await login(email, { "x-totp": await generate({ secret, epoch: now - 60 }) })).status).to.equal(401);
    expect((await login(email, { "x-totp": await generate({ secret, epoch: now - 30 }) })).status).to.equal(200);
    expect((await login(email, { "x-totp": await generate({ secret, epoch: now + 30 }) })).status).to.equal(200);
    expect((await login(email, { "x-totp": await generate({ secret, epoch: now + 60 }) })).status).to.equal(401);
  });

  it("lets a trusted source stand in for the code, until TOTP is turned off", async () => {
    const { email, secret } = await userWithTotp("totp-trusted");
    const withCode = (await login(email, { "x-totp": await nextCode(secret) })).body.data;
    const trusted = withCode.otp_trusted_source;
    const viaTrusted = await login(email, { "x-otp-trusted-source": trusted });
    expect(viaTrusted.status).to.equal(200);
    expect(viaTrusted.body.data).to.not.have.property("otp_trusted_source");
    expect((await login(email, { "x-otp-trusted-source": "made-up" })).status).to.equal(401);

    // The token from the login with a code proves the second factor, so it may turn TOTP off.
    const off = await auth.call("DELETE", "/auth/totp", { bearer: withCode.access_token });
    expect(off.status).to.equal(204);
    expect((await login(email)).status).to.equal(200);

    const setup = await auth.call("POST", "/auth/totp", { bearer: withCode.access_token });
    await auth.call("POST", "/auth/totp/confirm", {
      bearer: withCode.access_token,
      body: { code: await nextCode(setup.body.data.secret) },
    });
    const stale = await login(email, { "x-otp-trusted-source": trusted });
    expect(stale.status).to.equal(401);
    expect(stale.body.code).to.equal("totp_required");
  });

  it("expires a trusted source after 30 days", async () => {
    const { email, secret } = await userWithTotp("totp-trusted-expiry");
    const trusted = (await login(email, { "x-totp": await nextCode(secret) })).body.data.otp_trusted_source;
    auth.clock.advance(30 * 24 * 3600 + 60);
    expect((await login(email, { "x-otp-trusted-source": trusted })).status).to.equal(401);
  });

  it("needs a current code to turn TOTP off with a token from a login without one", async () => {
    const { secret, accessToken } = await userWithTotp("totp-off");
    const bare = await auth.call("DELETE", "/auth/totp", { bearer: accessToken });
    expect(bare.status).to.equal(401);
    expect(bare.body.code).to.equal("totp_required");
    const withCode = await auth.call("DELETE", "/auth/totp", { bearer: accessToken, headers: { "x-totp": await nextCode(secret) } });
    expect(withCode.status).to.equal(204);
  });

  it("requires the code for a magic-link login and a password reset too, without using up the mailed token", async () => {
    const { email, secret } = await userWithTotp("totp-mailed");
    const before = auth.smtp.mailsTo(email).length;
    await auth.call("POST", "/auth/magic-link", { body: { email }, address: newAddress() });
    const magic = tokenIn(await auth.smtp.waitForMail(email, before + 1));
    const noCode = await auth.call("POST", "/auth/magic-login", { body: { token: magic }, address: newAddress() });
    expect(noCode.status).to.equal(401);
    expect(noCode.body.code).to.equal("totp_required");
    const withCode = await auth.call("POST", "/auth/magic-login", {
      body: { token: magic },
      headers: { "x-totp": await nextCode(secret) },
      address: newAddress(),
    });
    expect(withCode.status).to.equal(200);
    expect((await auth.verifier().verify(withCode.body.data.access_token)).amr).to.deep.equal(["magic", "otp"]);
    const trusted = withCode.body.data.otp_trusted_source;
    expect((await login(email, { "x-otp-trusted-source": trusted })).status).to.equal(200);

    await auth.call("POST", "/auth/password-reset", { body: { email }, address: newAddress() });
    const reset = tokenIn(await auth.smtp.waitForMail(email, before + 2));
    const resetNoCode = await auth.call("POST", "/auth/change-password", { body: { token: reset, password: "a new password!" } });
    expect(resetNoCode.status).to.equal(401);
    expect(resetNoCode.body.code).to.equal("totp_required");
    const resetWithCode = await auth.call("POST", "/auth/change-password", {
      body: { token: reset, password: "a new password!" },
      headers: { "x-totp": await nextCode(secret) },
    });
    expect(resetWithCode.status).to.equal(200);
    // A new password revokes the trusted sources handed out before it.
    const stale = await login(email, { "x-otp-trusted-source": trusted }, "a new password!");
    expect(stale.status).to.equal(401);
    expect(stale.body.code).to.equal("totp_required");
  });

  it("refuses a wrong confirmation code, a second setup, and calls without an access token", async () => {
    const email = newEmail("totp-setup");
    const accessToken = (await auth.onboard(email, PASSWORD)).tokens.body.data.access_token;
    expect((await auth.call("POST", "/auth/totp")).status).to.equal(401);
    expect((await auth.call("POST", "/auth/totp", { bearer: "not.a.jwt" })).status).to.equal(401);
    expect((await auth.call("POST", "/auth/totp/confirm", { bearer: accessToken, body: { code: "123456" } })).body.code).to.equal(
      "totp_not_started",
    );
    const { secret } = (await auth.call("POST", "/auth/totp", { bearer: accessToken })).body.data;
    const code = await nextCode(secret);
    const wrong = await auth.call("POST", "/auth/totp/confirm", {
      bearer: accessToken,
      body: { code: code === "000000" ? "111111" : "000000" },
    });
    expect(wrong.status).to.equal(400);
    expect(wrong.body.code).to.equal("invalid_totp_code");
    const malformed = await auth.call("POST", "/auth/totp/confirm", { bearer: accessToken, body: { code: "12ab" } });
    expect(malformed.status).to.equal(400);
    expect(malformed.body.errors[0].path).to.equal("code");
    expect((await auth.call("POST", "/auth/totp/confirm", { bearer: accessToken, body: { code } })).status).to.equal(204);
    const second = await auth.call("POST", "/auth/totp", { bearer: accessToken });
    expect(second.status).to.equal(409);
    expect(second.body.code).to.equal("totp_already_enabled");
  });
});
