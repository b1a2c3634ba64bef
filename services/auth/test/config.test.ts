import { randomBytes } from "node:crypto";
import { ConfigError, loadConfig } from "@docex/kit/config";
import { expect } from "chai";
import { configSchema } from "../src/config.js";

const KEY = randomBytes(32).toString("base64");

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(configSchema, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("configuration", () => {
  it("fails fast naming AUTH_KEY_ENCRYPTION_KEY when it is missing or not 32 bytes", () => {
    const missing = problemsOf({});
    expect(missing).to.have.length(1);
    expect(missing[0]).to.match(/^AUTH_KEY_ENCRYPTION_KEY: is required.*\(not set\)$/);
    const short = problemsOf({ AUTH_KEY_ENCRYPTION_KEY: randomBytes(16).toString("base64") });
    expect(short[0]).to.match(/^AUTH_KEY_ENCRYPTION_KEY: must be the base64 encoding of exactly 32 bytes/);
  });

  it("reads the defaults of API.md and this service", () => {
    const config = loadConfig(configSchema, { AUTH_KEY_ENCRYPTION_KEY: KEY, SMTP_URL: "" });
    expect(config.SMTP_URL).to.equal(undefined);
    expect(config.SOCIAL_OIDC_ISSUERS).to.deep.equal([]);
    expect(config).to.include({
      AUTH_ACCOUNT_FAILURE_LIMIT: 10,
      AUTH_ACCOUNT_FAILURE_WINDOW_SECONDS: 900,
      AUTH_ACCOUNT_TOTAL_FAILURE_LIMIT: 50,
      AUTH_LOCKOUT_MAX_SECONDS: 900,
      AUTH_ADDRESS_FAILURE_LIMIT: 100,
      AUTH_ADDRESS_FAILURE_WINDOW_SECONDS: 300,
      AUTH_REFRESH_REUSE_GRACE_SECONDS: 10,
      PORT: 8081,
      GRPC_PORT: 9081,
    });
  });

  it("parses SOCIAL_OIDC_ISSUERS and names it when it is not a JSON array of issuers", () => {
    const issuers = [{ issuer: "https://accounts.example", audience: "docex", jwks_uri: "https://accounts.example/jwks" }];
    expect(
      loadConfig(configSchema, { AUTH_KEY_ENCRYPTION_KEY: KEY, SOCIAL_OIDC_ISSUERS: JSON.stringify(issuers) }).SOCIAL_OIDC_ISSUERS,
    ).to.deep.equal([{ ...issuers[0], require_nonce: false }]);
    expect(
      problemsOf({
        AUTH_KEY_ENCRYPTION_KEY: KEY,
        SOCIAL_OIDC_ISSUERS: '[{"issuer":"x","audience":"y","jwks_uri":"https://x/j","require_nonce":"yes"}]',
      })[0],
    ).to.match(/^SOCIAL_OIDC_ISSUERS\.0\.require_nonce/);
    expect(problemsOf({ AUTH_KEY_ENCRYPTION_KEY: KEY, SOCIAL_OIDC_ISSUERS: "{not json" })[0]).to.match(
      /^SOCIAL_OIDC_ISSUERS: must be a JSON array/,
    );
    expect(problemsOf({ AUTH_KEY_ENCRYPTION_KEY: KEY, SOCIAL_OIDC_ISSUERS: '[{"issuer":"x"}]' })[0]).to.match(/^SOCIAL_OIDC_ISSUERS\.0\./);
  });

  it("wants BOOTSTRAP_OWNER_EMAIL and BOOTSTRAP_OWNER_PASSWORD together, with a password the policy allows", () => {
    expect(problemsOf({ AUTH_KEY_ENCRYPTION_KEY: KEY, BOOTSTRAP_OWNER_EMAIL: "owner@example.test" })[0]).to.match(
      /^BOOTSTRAP_OWNER_PASSWORD: /,
    );
    expect(problemsOf({ AUTH_KEY_ENCRYPTION_KEY: KEY, BOOTSTRAP_OWNER_PASSWORD: "long enough password" })[0]).to.match(
      /^BOOTSTRAP_OWNER_EMAIL: /,
    );
    expect(
      problemsOf({ AUTH_KEY_ENCRYPTION_KEY: KEY, BOOTSTRAP_OWNER_EMAIL: "owner@example.test", BOOTSTRAP_OWNER_PASSWORD: "short" })[0],
    ).to.match(/^BOOTSTRAP_OWNER_PASSWORD: /);
  });
});
