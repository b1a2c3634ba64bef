import { expect } from "chai";
import { generate } from "otplib";
import { AuthHarness, newAddress, newEmail } from "./support/auth-harness.js";
import { OidcProvider } from "./support/oidc-provider.js";

const PASSWORD = "social user password";

describe("social login with an OIDC id_token", () => {
  let auth: AuthHarness;
  let stranger: OidcProvider;
  let email: string;

  before(async () => {
    auth = await AuthHarness.start();
    stranger = await OidcProvider.start("https://evil.example.test", "docex-web");
    email = newEmail("social");
    await auth.onboard(email, PASSWORD);
  });

  after(async () => {
    await stranger?.stop();
    await auth?.stop();
  });

  const socialLogin = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    auth.call("POST", "/auth/social-login", { body, headers, address: newAddress() });
  const idToken = (overrides: Record<string, unknown> = {}, forEmail = email) =>
    auth.oidc.idToken(forEmail, auth.clock.nowSeconds(), overrides);

  it("logs in an existing user whose id_token verifies against the issuer's JWKS", async () => {
    const answer = await socialLogin({ email, id_token: idToken() });
    expect(answer.status).to.equal(200);
    const caller = await auth.verifier().verify(answer.body.data.access_token);
    expect(caller.email).to.equal(email);
    expect(caller.amr).to.deep.equal(["social"]);
  });

  const refusals: Array<[string, () => Record<string, unknown>]> = [
    ["a wrong audience", () => ({ email, id_token: idToken({ aud: "someone-else" }) })],
    ["an issuer that is not configured", () => ({ email, id_token: stranger.idToken(email, auth.clock.nowSeconds()) })],
    [
      "a configured issuer's name on a token signed by another key",
      () => ({ email, id_token: stranger.idToken(email, auth.clock.nowSeconds(), { iss: auth.oidc.issuer }) }),
    ],
    ["an unverified email", () => ({ email, id_token: idToken({ email_verified: false }) })],
    ["an email other than the body's", () => ({ email, id_token: idToken({}, newEmail("other")) })],
    ["an expired token", () => ({ email, id_token: idToken({ exp: auth.clock.nowSeconds() - 120 }) })],
    ["a token without exp", () => ({ email, id_token: idToken({ exp: undefined }) })],
    ["something that is not a JWT", () => ({ email, id_token: "garbage" })],
  ];
  for (const [what, body] of refusals) {
    it(`refuses ${what} with 401 invalid_id_token`, async () => {
      const answer = await socialLogin(body());
      expect(answer.status).to.equal(401);
      expect(answer.body.code).to.equal("invalid_id_token");
    });
  }

  it("refuses an unknown user whose token verifies, too", async () => {
    const unknown = newEmail("unregistered");
    const answer = await socialLogin({ email: unknown, id_token: idToken({}, unknown) });
    expect(answer.status).to.equal(401);
  });

  it("names missing fields in a 400", async () => {
    const answer = await socialLogin({});
    expect(answer.status).to.equal(400);
    expect(answer.body.errors.map((error: { path: string }) => error.path).sort()).to.deep.equal(["email", "id_token"]);
  });

  it("asks for TOTP when the user has it on", async () => {
    const totpEmail = newEmail("social-totp");
    const accessToken = (await auth.onboard(totpEmail, PASSWORD)).tokens.body.data.access_token;
    const { secret } = (await auth.call("POST", "/auth/totp", { bearer: accessToken })).body.data;
    auth.clock.advance(30);
    await auth.call("POST", "/auth/totp/confirm", {
      bearer: accessToken,
      body: { code: await generate({ secret, epoch: auth.clock.nowSeconds() }) },
    });
    const noCode = await socialLogin({ email: totpEmail, id_token: idToken({}, totpEmail) });
    expect(noCode.status).to.equal(401);
    expect(noCode.body.code).to.equal("totp_required");
    auth.clock.advance(30);
    const code = await generate({ secret, epoch: auth.clock.nowSeconds() });
    const withCode = await socialLogin({ email: totpEmail, id_token: idToken({}, totpEmail) }, { "x-totp": code });
    expect(withCode.status).to.equal(200);
    expect((await auth.verifier().verify(withCode.body.data.access_token)).amr).to.deep.equal(["social", "otp"]);
  });
});
