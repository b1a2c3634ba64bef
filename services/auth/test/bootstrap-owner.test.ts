import { dropDatabase } from "@docex/testkit";
import { expect } from "chai";
import { startAuthService } from "../src/service.js";
import { authEventRecorder, authTestConfig, newEmail } from "./support/auth-harness.js";

describe("bootstrap owner", () => {
  it("is created once when two instances start together, and announced for membership's organization `bootstrap`", async () => {
    const email = newEmail("bootstrap");
    const password = "bootstrap owner password";
    const config = authTestConfig({ BOOTSTRAP_OWNER_EMAIL: email, BOOTSTRAP_OWNER_PASSWORD: password });
    const startedAt = new Date();
    const instances = await Promise.all([startAuthService(config), startAuthService(config)]);
    const events = await authEventRecorder(config, startedAt);
    try {
      const keys = await Promise.all(
        instances.map(async (instance) => {
          const jwks = (await (await fetch(`http://127.0.0.1:${instance.httpPort}/api/v2/auth/.well-known/jwks.json`)).json()) as {
            keys: unknown[];
          };
          return jwks.keys;
        }),
      );
      expect(keys[0]).to.have.length(1);
      expect(keys[1]).to.deep.equal(keys[0]);

      const login = await fetch(`http://127.0.0.1:${instances[1]!.httpPort}/api/v2/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password }),
      });
      expect(login.status).to.equal(200);

      const onboarded = await events.waitFor((event) => event.event.type === "auth.user_onboarded" && event.event.data.email === email);
      expect(onboarded.event.data).to.include({ company: "bootstrap", ui_locale: "en" });
      await new Promise((resolve) => setTimeout(resolve, 500));
      const onboardings = events.events.filter((event) => event.event.type === "auth.user_onboarded" && event.event.data.email === email);
      expect(onboardings).to.have.length(1);
    } finally {
      await Promise.all(instances.map((instance) => instance.stop()));
      await events.stop();
      await dropDatabase(config.DATABASE_NAME);
    }
  });
});
