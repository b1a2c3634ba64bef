import { createHash, randomBytes } from "node:crypto";
import { expect } from "chai";
import { generate } from "otplib";
import { AuthHarness, authTestConfig, newAddress, newEmail } from "./support/auth-harness.js";
import { OidcProvider } from "./support/oidc-provider.js";

const PASSWORD = "social user password";
/** The client's secret nonce of a sign-in; the issuer only sees its hash (the `nonce` claim). */
const NONCE = randomBytes(24).toString("base64url");
const nonceClaim = (nonce: string, encoding: "base64url" | "hex" = "base64url") => createHash("sha256").update(nonce).digest(encoding);

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
    auth.call("POST", "/auth/social-login", { body: { nonce: NONCE, ...body }, headers, address: newAddress() });
  /** An id_token of the configured issuer, bound to NONCE unless the overrides say otherwise. */
  const idToken = (overrides: Record<string, unknown> = {}, forEmail = email) =>
    auth.oidc.idToken(forEmail, auth.clock.nowSeconds(), { nonce: nonceClaim(NONCE), ...overrides });

  it("logs in an existing user whose id_token verifies against the issuer's JWKS", async () => {
    const answer = await socialLogin({ email, id_token: idToken() });
    expect(answer.status).to.equal(200);
    const caller = await auth.verifier().verify(answer.body.data.access_token);
    expect(caller.email).to.equal(email);
    expect(caller.amr).to.deep.equal(["social"]);
  });

  const refusals: Array<[string, () => Record<string, unknown>]> = [
    ["a wrong audience", () => ({ email, id_token: idToken({ aud: "someone-else" }) })],
    [
      "an issuer that is not configured",
      () => ({ email, id_token: stranger.idToken(email, auth.clock.nowSeconds(), { nonce: nonceClaim(NONCE) }) }),
    ],
    [
      "a configured issuer's name on a token signed by another key",
      () => ({ email, id_token: stranger.idToken(email, auth.clock.nowSeconds(), { iss: auth.oidc.issuer, nonce: nonceClaim(NONCE) }) }),
    ],
    ["a token without a nonce claim", () => ({ email, id_token: idToken({ nonce: undefined }) })],
    [
      "a token whose nonce is another sign-in's",
      () => ({ email, id_token: idToken({ nonce: nonceClaim("another client's nonce, 32 chars") }) }),
    ],
    ["a body nonce other than the token's", () => ({ email, id_token: idToken(), nonce: randomBytes(24).toString("base64url") })],
    [
      "a token without a nonce, sent without one, issued more than 5 minutes ago",
      () => ({ email, id_token: idToken({ nonce: undefined, iat: auth.clock.nowSeconds() - 6 * 60 }), nonce: undefined }),
    ],
    [
      "a token sent without a nonce that has no iat (nothing says it is fresh)",
      () => ({ email, id_token: idToken({ nonce: undefined, iat: undefined }), nonce: undefined }),
    ],
    [
      "a token sent without a nonce whose iat is in the future",
      () => ({ email, id_token: idToken({ iat: auth.clock.nowSeconds() + 5 * 60 }), nonce: undefined }),
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

  it("names missing fields in a 400, and a nonce too short to be random", async () => {
    const answer = await auth.call("POST", "/auth/social-login", { body: {}, address: newAddress() });
    expect(answer.status).to.equal(400);
    expect(answer.body.errors.map((error: { path: string }) => error.path).sort()).to.deep.equal(["email", "id_token"]);
    const short = await socialLogin({ email, id_token: idToken(), nonce: "short" });
    expect(short.status).to.equal(400);
    expect(short.body.errors.map((error: { path: string }) => error.path)).to.deep.equal(["nonce"]);
  });

  it("takes the nonce's hash as hex, and the nonce itself as the claim (API.md)", async () => {
    expect((await socialLogin({ email, id_token: idToken({ nonce: nonceClaim(NONCE, "hex") }) })).status).to.equal(200);
    expect((await socialLogin({ email, id_token: idToken({ nonce: NONCE }) })).status).to.equal(200);
  });

  it("logs in with the spec's body {email, id_token}: no nonce in the body, whether or not the token has a nonce claim", async () => {
    const seedBody = await auth.call("POST", "/auth/social-login", {
      body: { email, id_token: idToken({ nonce: undefined }) },
      address: newAddress(),
    });
    expect(seedBody.status, JSON.stringify(seedBody.body)).to.equal(200);
    expect((await auth.verifier().verify(seedBody.body.data.access_token)).amr).to.deep.equal(["social"]);
    const withClaim = await auth.call("POST", "/auth/social-login", { body: { email, id_token: idToken() }, address: newAddress() });
    expect(withClaim.status).to.equal(200);
  });

  it("takes a token 4 minutes old without a nonce, and one far older (still within exp) with its nonce", async () => {
    const now = auth.clock.nowSeconds();
    expect((await socialLogin({ email, id_token: idToken({ nonce: undefined, iat: now - 4 * 60 }), nonce: undefined })).status).to.equal(
      200,
    );
    expect((await socialLogin({ email, id_token: idToken({ iat: now - 50 * 60, exp: now + 600 }) })).status).to.equal(200);
  });

  it("logs in once per id_token sent without a nonce as well: the replay is refused", async () => {
    const token = idToken({ nonce: undefined });
    expect((await socialLogin({ email, id_token: token, nonce: undefined })).status).to.equal(200);
    const replayed = await socialLogin({ email, id_token: token, nonce: undefined });
    expect(replayed.status).to.equal(401);
    expect(replayed.body.code).to.equal("invalid_id_token");
    expect(replayed.body.detail).to.match(/used already/);
  });

  it("logs in once per id_token: a replay is refused, also while the token is still valid", async () => {
    const token = idToken();
    expect((await socialLogin({ email, id_token: token })).status).to.equal(200);
    const replayed = await socialLogin({ email, id_token: token });
    expect(replayed.status).to.equal(401);
    expect(replayed.body.code).to.equal("invalid_id_token");
    expect(replayed.body.detail).to.match(/used already/);
  });

  it("lets exactly one of parallel logins with one id_token through", async () => {
    const token = idToken();
    const answers = await Promise.all(Array.from({ length: 8 }, () => socialLogin({ email, id_token: token })));
    expect(answers.filter((answer) => answer.status === 200)).to.have.length(1);
    expect(answers.filter((answer) => answer.status === 401 && answer.body.code === "invalid_id_token")).to.have.length(7);
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
    const token = idToken({}, totpEmail);
    const noCode = await socialLogin({ email: totpEmail, id_token: token });
    expect(noCode.status).to.equal(401);
    expect(noCode.body.code).to.equal("totp_required");
    auth.clock.advance(30);
    const code = await generate({ secret, epoch: auth.clock.nowSeconds() });
    // Without the code the id_token was not used up: the retry with the code may use it.
    const withCode = await socialLogin({ email: totpEmail, id_token: token }, { "x-totp": code });
    expect(withCode.status).to.equal(200);
    expect((await socialLogin({ email: totpEmail, id_token: token }, { "x-totp": code })).status).to.equal(401);
    expect((await auth.verifier().verify(withCode.body.data.access_token)).amr).to.deep.equal(["social", "otp"]);
  });
});

describe("social login with an issuer that requires a nonce (SOCIAL_OIDC_ISSUERS[].require_nonce)", () => {
  let strict: OidcProvider;
  let auth: AuthHarness;
  let email: string;

  before(async () => {
    strict = await OidcProvider.start("https://strict.example.test", "docex-web");
    auth = await AuthHarness.start({
      SOCIAL_OIDC_ISSUERS: JSON.stringify([
        { issuer: strict.issuer, audience: strict.audience, jwks_uri: strict.jwksUri, require_nonce: true },
      ]),
    });
    email = newEmail("strict");
    await auth.onboard(email, PASSWORD);
  });

  after(async () => {
    await auth?.stop();
    await strict?.stop();
  });

  const login = (body: Record<string, unknown>) => auth.call("POST", "/auth/social-login", { body, address: newAddress() });

  it("refuses its fresh id_token sent without a nonce with 401 invalid_id_token, and takes it with the matching nonce", async () => {
    const token = strict.idToken(email, auth.clock.nowSeconds(), { nonce: nonceClaim(NONCE) });
    const without = await login({ email, id_token: token });
    expect(without.status).to.equal(401);
    expect(without.body.code).to.equal("invalid_id_token");
    expect(without.body.detail).to.match(/requires the nonce/);
    expect((await login({ email, id_token: token, nonce: NONCE })).status).to.equal(200);
  });

  it("refuses a wrong nonce as any issuer does", async () => {
    const token = strict.idToken(email, auth.clock.nowSeconds(), { nonce: nonceClaim(NONCE) });
    const wrong = await login({ email, id_token: token, nonce: randomBytes(24).toString("base64url") });
    expect(wrong.status).to.equal(401);
    expect(wrong.body.code).to.equal("invalid_id_token");
  });

  it("reads require_nonce from the configuration, false unless set", () => {
    expect(auth.config.SOCIAL_OIDC_ISSUERS).to.deep.equal([
      { issuer: strict.issuer, audience: strict.audience, jwks_uri: strict.jwksUri, require_nonce: true },
    ]);
    const plain = authTestConfig({
      SOCIAL_OIDC_ISSUERS: JSON.stringify([{ issuer: "https://a.test", audience: "x", jwks_uri: "https://a.test/jwks" }]),
    });
    expect(plain.SOCIAL_OIDC_ISSUERS[0]!.require_nonce).to.equal(false);
  });
});
