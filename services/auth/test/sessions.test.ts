import { databaseUrl } from "@docex/kit/db";
import { expect } from "chai";
import jwt, { type JwtPayload } from "jsonwebtoken";
import pg from "pg";
import { AuthHarness, newAddress, newEmail } from "./support/auth-harness.js";

const PASSWORD = "correct horse battery staple";

describe("password login, tokens, refresh and logout", () => {
  let auth: AuthHarness;
  let email: string;
  let userId: string;

  before(async () => {
    auth = await AuthHarness.start({ AUTH_REFRESH_REUSE_GRACE_SECONDS: 10 });
    email = newEmail("session");
    ({ userId } = await auth.onboard(email, PASSWORD));
  });

  after(async () => {
    await auth?.stop();
  });

  const login = (password = PASSWORD, loginEmail = email, address = newAddress()) =>
    auth.call("POST", "/auth/login", { body: { email: loginEmail, password }, address });

  it("answers TokenResponseDto with an ES256 access token that the gateway's verifier accepts through the JWKS", async () => {
    const answer = await login();
    expect(answer.status).to.equal(200);
    expect(answer.headers.get("cache-control")).to.equal("no-store");
    const dto = answer.body.data;
    expect(Object.keys(dto).sort()).to.deep.equal(["access_token", "expires_in", "refresh_expires_in", "refresh_token", "token_type"]);
    expect(dto).to.include({ token_type: "Bearer", expires_in: 900, refresh_expires_in: 2_592_000 });

    const caller = await auth.verifier().verify(dto.access_token);
    expect(caller).to.include({ userId, email });
    expect(caller.amr).to.deep.equal(["pwd"]);

    const decoded = jwt.decode(dto.access_token, { complete: true })!;
    const claims = decoded.payload as JwtPayload;
    expect(decoded.header.alg).to.equal("ES256");
    const jwks = await auth.call("GET", "/auth/.well-known/jwks.json");
    expect(jwks.body.keys.map((key: { kid: string }) => key.kid)).to.include(decoded.header.kid);
    expect(jwks.body.keys[0]).to.include({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    expect(jwks.body.keys[0]).to.not.have.property("d");
    expect(claims).to.include({ sub: userId, email, iss: "docex", aud: "docex-api" });
    expect(claims.exp! - claims.iat!).to.equal(900);
    expect(claims.jti).to.match(/^[0-9a-f-]{36}$/);
  });

  it("accepts the email in any case and with surrounding spaces", async () => {
    expect((await login(PASSWORD, `  ${email.toUpperCase()} `)).status).to.equal(200);
    expect((await login(PASSWORD, email.toUpperCase())).status).to.equal(200);
  });

  it("answers a wrong password and an unknown email with the same 401", async () => {
    const wrong = await login("not the password at all");
    const unknown = await login(PASSWORD, newEmail("nobody"));
    expect(wrong.status).to.equal(401);
    expect(unknown.status).to.equal(401);
    expect(wrong.headers.get("content-type")).to.match(/^application\/problem\+json/);
    const { request_id: _a, ...wrongProblem } = wrong.body;
    const { request_id: _b, ...unknownProblem } = unknown.body;
    expect(wrongProblem).to.deep.equal(unknownProblem);
    expect(wrongProblem.code).to.equal("invalid_credentials");
  });

  it("takes as long for an unknown email as for a wrong password (both run argon2id)", async () => {
    const timed = async (loginEmail: string) => {
      const started = process.hrtime.bigint();
      await login("not the password at all", loginEmail);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const wrong: number[] = [];
    const unknown: number[] = [];
    for (let round = 0; round < 5; round += 1) {
      wrong.push(await timed(email));
      unknown.push(await timed(newEmail("nobody")));
    }
    // What would leak is an unknown email answered fast (no hash run); the upper bound only catches a second hash,
    // and is wide because a loaded machine stretches single requests.
    expect(median(unknown)).to.be.greaterThan(median(wrong) * 0.6);
    expect(median(unknown)).to.be.lessThan(median(wrong) * 2.5);
  });

  it("names every bad field of a bad body in a 400", async () => {
    const answer = await auth.call("POST", "/auth/login", { body: { email: "not-an-email", password: "" }, address: newAddress() });
    expect(answer.status).to.equal(400);
    expect(answer.body.errors.map((error: { path: string }) => error.path).sort()).to.deep.equal(["email", "password"]);
    const refresh = await auth.call("POST", "/auth/refresh", { body: {} });
    expect(refresh.status).to.equal(400);
    expect(refresh.body.errors.map((error: { path: string }) => error.path)).to.deep.equal(["refresh_token"]);
    const notJson = await fetch(`${auth.baseUrl}/api/v2/auth/login`, {
      method: "POST",
      body: "email=a",
      headers: { "content-type": "text/plain" },
    });
    expect(notJson.status).to.equal(415);
  });

  it("rotates the refresh token on every refresh, keeping the session's amr and absolute expiry", async () => {
    const first = (await login()).body.data;
    auth.clock.advance(60);
    const refreshed = await auth.call("POST", "/auth/refresh", { body: { refresh_token: first.refresh_token } });
    expect(refreshed.status).to.equal(200);
    const second = refreshed.body.data;
    expect(second.refresh_token).to.not.equal(first.refresh_token);
    expect(second.refresh_expires_in).to.be.within(2_592_000 - 62, 2_592_000 - 59);
    const caller = await auth.verifier().verify(second.access_token);
    expect(caller.userId).to.equal(userId);
    expect(caller.amr).to.deep.equal(["pwd"]);
  });

  it("refuses a used refresh token within the grace window without ending the session", async () => {
    const first = (await login()).body.data;
    const second = (await auth.call("POST", "/auth/refresh", { body: { refresh_token: first.refresh_token } })).body.data;
    auth.clock.advance(5);
    const replay = await auth.call("POST", "/auth/refresh", { body: { refresh_token: first.refresh_token } });
    expect(replay.status).to.equal(401);
    expect(replay.body.code).to.equal("refresh_token_reused");
    const next = await auth.call("POST", "/auth/refresh", { body: { refresh_token: second.refresh_token } });
    expect(next.status).to.equal(200);
  });

  it("revokes the whole family when a used refresh token comes back after the grace window", async () => {
    const first = (await login()).body.data;
    const second = (await auth.call("POST", "/auth/refresh", { body: { refresh_token: first.refresh_token } })).body.data;
    auth.clock.advance(11);
    const replay = await auth.call("POST", "/auth/refresh", { body: { refresh_token: first.refresh_token } });
    expect(replay.status).to.equal(401);
    expect(replay.body.code).to.equal("refresh_token_reused");
    const victim = await auth.call("POST", "/auth/refresh", { body: { refresh_token: second.refresh_token } });
    expect(victim.status).to.equal(401);
    expect(victim.body.code).to.equal("invalid_refresh_token");
  });

  it("lets exactly one of two concurrent refreshes with the same token through", async () => {
    const first = (await login()).body.data;
    const answers = await Promise.all(
      [1, 2, 3].map(() => auth.call("POST", "/auth/refresh", { body: { refresh_token: first.refresh_token } })),
    );
    expect(answers.map((answer) => answer.status).sort()).to.deep.equal([200, 401, 401]);
  });

  it("ends the session on logout, and answers 204 for a token it does not know", async () => {
    const tokens = (await login()).body.data;
    const out = await auth.call("POST", "/auth/logout", { body: { refresh_token: tokens.refresh_token } });
    expect(out.status).to.equal(204);
    const after = await auth.call("POST", "/auth/refresh", { body: { refresh_token: tokens.refresh_token } });
    expect(after.status).to.equal(401);
    expect((await auth.call("POST", "/auth/logout", { body: { refresh_token: "no-such-token" } })).status).to.equal(204);
  });

  it("refuses refresh tokens it never issued, and an expired family", async () => {
    expect((await auth.call("POST", "/auth/refresh", { body: { refresh_token: "made-up" } })).status).to.equal(401);
    const tokens = (await login()).body.data;
    auth.clock.advance(30 * 24 * 3600 + 1);
    const expired = await auth.call("POST", "/auth/refresh", { body: { refresh_token: tokens.refresh_token } });
    expect(expired.status).to.equal(401);
    expect(expired.body.code).to.equal("invalid_refresh_token");
  });

  it("keeps only digests of refresh tokens and a sealed private key in the database", async () => {
    const tokens = (await login()).body.data;
    const client = new pg.Client({ connectionString: databaseUrl(auth.config.DATABASE_URL, auth.config.DATABASE_NAME) });
    await client.connect();
    try {
      const stored = await client.query("SELECT 1 FROM refresh_tokens WHERE digest = sha256(convert_to($1, 'UTF8'))", [
        tokens.refresh_token,
      ]);
      expect(stored.rowCount).to.equal(1);
      const plain = await client.query("SELECT 1 FROM refresh_tokens WHERE position(convert_to($1, 'UTF8') in digest) > 0", [
        tokens.refresh_token,
      ]);
      expect(plain.rowCount).to.equal(0);
      const keys = await client.query("SELECT private_key FROM signing_keys");
      for (const row of keys.rows) {
        expect(row.private_key).to.match(/^v1\./);
        expect(row.private_key).to.not.include("PRIVATE KEY");
      }
      const users = await client.query("SELECT password_hash FROM users WHERE email = $1", [email]);
      expect(users.rows[0].password_hash).to.match(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    } finally {
      await client.end();
    }
  });

  it("never writes a password or token into its logs", () => {
    const logs = auth.logs.join("\n");
    expect(logs).to.include('"service":"auth"');
    expect(logs).to.not.include(PASSWORD);
    expect(logs).to.not.match(/eyJ[A-Za-z0-9_-]{20,}/);
  });
});
