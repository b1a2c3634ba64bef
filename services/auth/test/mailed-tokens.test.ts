import { tokenIn } from "@docex/testkit";
import { expect } from "chai";
import { AuthHarness, newAddress, newEmail } from "./support/auth-harness.js";

const PASSWORD = "first password 123";

describe("magic links and password reset by mail", () => {
  let auth: AuthHarness;
  let email: string;

  before(async () => {
    auth = await AuthHarness.start({ AUTH_APP_URL: "https://app.docex.test" });
    email = newEmail("mailed");
    await auth.onboard(email, PASSWORD);
  });

  after(async () => {
    await auth?.stop();
  });

  const mailCount = () => auth.smtp.mailsTo(email).length;

  describe("magic link", () => {
    it("answers 202 for known and unknown emails alike, and mails a single-use link only to the account", async () => {
      const unknown = newEmail("unknown");
      const forUnknown = await auth.call("POST", "/auth/magic-link", { body: { email: unknown }, address: newAddress() });
      const before = mailCount();
      const forKnown = await auth.call("POST", "/auth/magic-link", { body: { email }, address: newAddress() });
      expect(forUnknown.status).to.equal(202);
      expect(forKnown.status).to.equal(202);
      expect(forUnknown.body).to.equal(forKnown.body);

      const mail = await auth.smtp.waitForMail(email, before + 1);
      expect(mail.subject).to.equal("Your docex sign-in link");
      expect(mail.text).to.match(/https:\/\/app\.docex\.test\/auth\/magic-login\?token=/);
      const token = tokenIn(mail);

      const login = await auth.call("POST", "/auth/magic-login", { body: { token }, address: newAddress() });
      expect(login.status).to.equal(200);
      const caller = await auth.verifier().verify(login.body.data.access_token);
      expect(caller.amr).to.deep.equal(["magic"]);
      expect(caller.email).to.equal(email);

      const again = await auth.call("POST", "/auth/magic-login", { body: { token }, address: newAddress() });
      expect(again.status).to.equal(401);
      expect(again.body.code).to.equal("invalid_token");
      expect(auth.smtp.mailsTo(unknown)).to.have.length(0);

      const event = await auth.events.waitFor(
        (recorded) => recorded.event.data.recipient === email && recorded.event.data.template === "magic_link",
      );
      expect(event.raw).to.not.include(token);
    });

    it("clears the other outstanding links once one is used", async () => {
      const before = mailCount();
      await auth.call("POST", "/auth/magic-link", { body: { email }, address: newAddress() });
      await auth.call("POST", "/auth/magic-link", { body: { email }, address: newAddress() });
      const first = tokenIn(await auth.smtp.waitForMail(email, before + 1));
      const second = tokenIn(await auth.smtp.waitForMail(email, before + 2));
      expect((await auth.call("POST", "/auth/magic-login", { body: { token: second }, address: newAddress() })).status).to.equal(200);
      expect((await auth.call("POST", "/auth/magic-login", { body: { token: first }, address: newAddress() })).status).to.equal(401);
    });

    it("refuses a link after fifteen minutes", async () => {
      const before = mailCount();
      await auth.call("POST", "/auth/magic-link", { body: { email }, address: newAddress() });
      const token = tokenIn(await auth.smtp.waitForMail(email, before + 1));
      auth.clock.advance(15 * 60 + 1);
      const late = await auth.call("POST", "/auth/magic-login", { body: { token }, address: newAddress() });
      expect(late.status).to.equal(401);
      expect(late.body.code).to.equal("invalid_token");
    });
  });

  describe("password reset", () => {
    it("answers 202 for unknown emails, and resets the password of the account with the mailed token", async () => {
      expect(
        (await auth.call("POST", "/auth/password-reset", { body: { email: newEmail("ghost") }, address: newAddress() })).status,
      ).to.equal(202);
      const session = (await auth.call("POST", "/auth/login", { body: { email, password: PASSWORD }, address: newAddress() })).body.data;
      const before = mailCount();
      expect((await auth.call("POST", "/auth/password-reset", { body: { email }, address: newAddress() })).status).to.equal(202);
      const mail = await auth.smtp.waitForMail(email, before + 1);
      expect(mail.subject).to.equal("Reset your docex password");
      const token = tokenIn(mail);

      const inspected = await auth.call("GET", `/auth/password-change-token?token=${token}`);
      expect(inspected.status).to.equal(200);
      expect(inspected.body.data).to.include({ email, purpose: "reset" });

      const newPassword = "my brand new password";
      const changed = await auth.call("POST", "/auth/change-password", { body: { token, password: newPassword }, address: newAddress() });
      expect(changed.status).to.equal(200);
      expect((await auth.verifier().verify(changed.body.data.access_token)).amr).to.deep.equal(["pwd"]);

      const oldPassword = await auth.call("POST", "/auth/login", { body: { email, password: PASSWORD }, address: newAddress() });
      expect(oldPassword.status).to.equal(401);
      const newLogin = await auth.call("POST", "/auth/login", { body: { email, password: newPassword }, address: newAddress() });
      expect(newLogin.status).to.equal(200);

      // A password change ends every session that existed before it.
      const oldSession = await auth.call("POST", "/auth/refresh", { body: { refresh_token: session.refresh_token } });
      expect(oldSession.status).to.equal(401);
      const reused = await auth.call("POST", "/auth/change-password", { body: { token, password: "yet another password" } });
      expect(reused.status).to.equal(401);
      expect((await auth.call("GET", `/auth/password-change-token?token=${token}`)).status).to.equal(401);
    });

    it("does not take a magic-login token as a password-change token", async () => {
      const before = mailCount();
      await auth.call("POST", "/auth/magic-link", { body: { email }, address: newAddress() });
      const token = tokenIn(await auth.smtp.waitForMail(email, before + 1));
      expect((await auth.call("GET", `/auth/password-change-token?token=${token}`)).status).to.equal(401);
      expect((await auth.call("POST", "/auth/change-password", { body: { token, password: "whatever password" } })).status).to.equal(401);
      expect((await auth.call("GET", "/auth/password-change-token")).status).to.equal(400);
    });

    it("stops mailing one recipient after its quota, still answering 202", async () => {
      const quota = auth.config.AUTH_MAIL_LIMIT_PER_RECIPIENT;
      const recipient = newEmail("quota");
      await auth.onboard(recipient, PASSWORD);
      const before = auth.smtp.mailsTo(recipient).length;
      for (let request = 0; request < quota + 2; request += 1) {
        expect((await auth.call("POST", "/auth/password-reset", { body: { email: recipient }, address: newAddress() })).status).to.equal(
          202,
        );
      }
      await auth.smtp.waitForMail(recipient, before + quota);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(auth.smtp.mailsTo(recipient).length - before).to.equal(quota);
    });
  });
});
