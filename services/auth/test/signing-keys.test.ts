import { randomBytes } from "node:crypto";
import { TokenVerifier } from "@docex/kit/auth";
import { kitMigrations } from "@docex/kit/bus";
import { connectDatabase, runMigrations, type Sql } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import { dropDatabase, testDatabaseServerUrl, uniqueDatabaseName } from "@docex/testkit";
import { expect } from "chai";
import jwt from "jsonwebtoken";
import { SealingKey } from "../src/domain/secrets.js";
import { SigningKeys } from "../src/domain/signing-keys.js";
import { startAuthService } from "../src/service.js";
import { migrations } from "../src/store/migrations.js";
import { SigningKeyStore } from "../src/store/signing-key-store.js";
import { AuthHarness, authTestConfig, newAddress, newEmail } from "./support/auth-harness.js";
import { TestClock } from "./support/test-clock.js";

const kidOf = (token: string) => jwt.decode(token, { complete: true })!.header.kid;

describe("signing keys", () => {
  describe("on a fresh database", () => {
    const database = uniqueDatabaseName("auth_keys");
    let db: Sql;

    before(async () => {
      const logger = createLogger("auth", "silent");
      db = await connectDatabase({ serverUrl: testDatabaseServerUrl(), database, logger });
      await runMigrations(db, [...kitMigrations, ...migrations], logger);
    });

    after(async () => {
      await db?.close();
      await dropDatabase(database);
    });

    it("creates exactly one key when several instances start at once", async () => {
      const sealing = new SealingKey(randomBytes(32));
      const store = new SigningKeyStore(db);
      const instances = [1, 2, 3, 4].map(
        () => new SigningKeys(store, sealing, new TestClock(), { rotationIntervalSeconds: 86_400, tokenTtlSeconds: 900 }),
      );
      const active = await Promise.all(instances.map((instance) => instance.active()));
      expect(new Set(active.map((key) => key.kid)).size).to.equal(1);
      const rows = await db.rows("SELECT kid FROM signing_keys");
      expect(rows).to.have.length(1);
    });
  });

  describe("rotation in a running service", () => {
    let auth: AuthHarness;
    let email: string;
    const password = "rotation password";

    before(async () => {
      auth = await AuthHarness.start({ AUTH_SIGNING_KEY_ROTATION_DAYS: 1 });
      email = newEmail("rotation");
      await auth.onboard(email, password);
    });

    after(async () => {
      await auth?.stop();
    });

    const accessToken = async () =>
      (await auth.call("POST", "/auth/login", { body: { email, password }, address: newAddress() })).body.data.access_token as string;
    const publishedKids = async () =>
      (await auth.call("GET", "/auth/.well-known/jwks.json")).body.keys.map((key: { kid: string }) => key.kid) as string[];

    it("publishes the next key before it signs with it, then publishes the old one until its tokens expired", async () => {
      const before = await accessToken();
      // A verifier that read the JWKS once and will not refetch it for an hour.
      const slowVerifier = new TokenVerifier({
        jwksUri: auth.jwksUrl,
        issuer: auth.config.JWT_ISSUER,
        audience: auth.config.JWT_AUDIENCE,
        jwksCooldownMs: 3_600_000,
      });
      auth.clock.advance(24 * 3600 + 61);
      // Due: the next key is published, the old one still signs.
      const stillOld = await accessToken();
      expect(kidOf(stillOld)).to.equal(kidOf(before));
      const published = await publishedKids();
      expect(published).to.have.length(2);
      const nextKid = published.find((kid) => kid !== kidOf(before));
      expect((await slowVerifier.verify(stillOld)).email).to.equal(email);

      auth.clock.advance(15 * 60 + 61);
      const after = await accessToken();
      expect(kidOf(after)).to.equal(nextKid);
      expect(await publishedKids()).to.have.members([kidOf(before), kidOf(after)]);
      // Its first token meets a verifier that already holds the key: no refetch needed (nor allowed, here).
      expect((await slowVerifier.verify(after)).email).to.equal(email);
      const verifier = auth.verifier();
      expect((await verifier.verify(before)).email).to.equal(email);
      expect((await verifier.verify(after)).email).to.equal(email);

      auth.clock.advance(15 * 60 + 2 * 60 + 1);
      expect(await publishedKids()).to.deep.equal([kidOf(after)]);
    });
  });

  it("refuses to start with a key-encryption key other than the one the keys were sealed with", async () => {
    const config = authTestConfig();
    const first = await startAuthService(config);
    await first.stop();
    try {
      const other = { ...config, AUTH_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64") };
      const failure = await startAuthService(other).then(
        async (running) => {
          await running.stop();
          return undefined;
        },
        (error: unknown) => error,
      );
      expect(String(failure)).to.include("AUTH_KEY_ENCRYPTION_KEY does not open the stored signing key");
    } finally {
      await dropDatabase(config.DATABASE_NAME);
    }
  });
});
