import { dropDatabase } from "@docex/testkit";
import { startAuthService } from "../src/service.js";
import { AuthHarness, authTestConfig } from "./support/auth-harness.js";

describe("timing", () => {
  it("measures", async () => {
    let t = Date.now();
    const config = authTestConfig();
    const running = await startAuthService(config);
    console.log("start", Date.now() - t); t = Date.now();
    await running.stop();
    console.log("stop", Date.now() - t); t = Date.now();
    await dropDatabase(config.DATABASE_NAME);
    console.log("drop", Date.now() - t); t = Date.now();
    const h = await AuthHarness.start();
    console.log("harness start", Date.now() - t); t = Date.now();
    await h.running.stop();
    console.log("harness running stop", Date.now() - t); t = Date.now();
    await h.smtp.stop(); console.log("smtp stop", Date.now() - t); t = Date.now();
    await h.events.stop(); console.log("events stop", Date.now() - t); t = Date.now();
    await h.membership.stop(); console.log("membership stop", Date.now() - t); t = Date.now();
    await h.oidc.stop(); console.log("oidc stop", Date.now() - t); t = Date.now();
    await dropDatabase(h.config.DATABASE_NAME);
  });
});
