import { pinIn } from "@docex/testkit";
import { expect } from "chai";
import { AuthHarness, newAddress, newEmail } from "./support/auth-harness.js";

const PASSWORD = "onboarding password 1";

describe("self-registration: register, PIN, invitation token, first password", () => {
  let auth: AuthHarness;

  before(async () => {
    auth = await AuthHarness.start();
  });

  after(async () => {
    await auth?.stop();
  });

  const register = (email: string, extra: Record<string, unknown> = {}, address = newAddress()) =>
    auth.call("POST", "/auth/register", {
      body: {
        email,
        phone: "+420 777 123 456",
        ui_locale: "en",
        company: "Acme Invoices",
        vat_id: "CZ12345678",
        invoice_count: 250,
        ...extra,
      },
      address,
    });

  it("onboards a new user: PIN by mail, invitation token, first password, organization, event", async () => {
    const email = newEmail("onboard");
    const address = newAddress();
    const registered = await register(email, { register_id: "12345678", erp: "pohoda" }, address);
    expect(registered.status).to.equal(202);
    expect(registered.body).to.equal(undefined);

    const mail = await auth.smtp.waitForMail(email);
    expect(mail.subject).to.equal("Your docex verification code");
    const pin = pinIn(mail);
    const verified = await auth.call("POST", "/auth/verify-onboarding-pin", { body: { email, pin }, address });
    expect(verified.status).to.equal(200);
    const invitationToken = verified.body.data.invitation_token;
    expect(invitationToken).to.be.a("string").with.length.greaterThan(40);

    const inspected = await auth.call("GET", `/auth/password-change-token?token=${invitationToken}`, { address });
    expect(inspected.status).to.equal(200);
    expect(inspected.body.data).to.include({ email, purpose: "invitation" });
    expect(Date.parse(inspected.body.data.expires_at)).to.be.greaterThan(Date.now());

    const changed = await auth.call("POST", "/auth/change-password", { body: { token: invitationToken, password: PASSWORD }, address });
    expect(changed.status).to.equal(200);
    const caller = await auth.verifier().verify(changed.body.data.access_token);
    expect(caller.email).to.equal(email);
    expect(caller.amr).to.deep.equal(["invite"]);

    // The organization exists when the tokens are returned: membership was asked before the answer.
    const call = auth.membership.calls.find((request) => request.owner_user_id === caller.userId);
    expect(call).to.include({ name: "Acme Invoices", idempotency_key: `onboarding:${caller.userId}` });

    const onboarded = await auth.events.waitFor(
      (event) => event.event.type === "auth.user_onboarded" && event.event.data.user_id === caller.userId,
    );
    expect(onboarded.subject).to.equal("docex.auth.user_onboarded");
    expect(onboarded.msgId).to.equal(onboarded.event.id);
    expect(onboarded.event.data).to.deep.equal({
      user_id: caller.userId,
      email,
      company: "Acme Invoices",
      vat_id: "CZ12345678",
      register_id: "12345678",
      erp: "pohoda",
      invoice_count: 250,
      ui_locale: "en",
    });

    const mailEvent = await auth.events.waitFor(
      (event) => event.event.type === "auth.mail_requested" && event.event.data.recipient === email,
    );
    expect(mailEvent.event.data).to.deep.equal({ recipient: email, template: "onboarding_pin", locale: "en", user_id: caller.userId });
    expect(mailEvent.raw).to.not.include(pin);

    const login = await auth.call("POST", "/auth/login", { body: { email, password: PASSWORD }, address: newAddress() });
    expect(login.status).to.equal(200);

    const reused = await auth.call("POST", "/auth/change-password", { body: { token: invitationToken, password: "another password 2" } });
    expect(reused.status).to.equal(401);
    expect(reused.body.code).to.equal("invalid_token");
  });

  it("completes onboarding when membership is down; the event carries what membership needs", async () => {
    auth.membership.available = false;
    try {
      const email = newEmail("membership-down");
      const { tokens, userId } = await auth.onboard(email, PASSWORD, { company: "Offline Ltd" });
      expect(tokens.status).to.equal(200);
      expect(auth.membership.organizations.has(`onboarding:${userId}`)).to.equal(false);
      const onboarded = await auth.events.waitFor(
        (event) => event.event.type === "auth.user_onboarded" && event.event.data.user_id === userId,
      );
      expect(onboarded.event.data.company).to.equal("Offline Ltd");
    } finally {
      auth.membership.available = true;
    }
  });

  it("mails in Czech to a user who registers with a Czech locale", async () => {
    const email = newEmail("czech");
    expect((await register(email, { ui_locale: "cs_CZ" })).status).to.equal(202);
    const mail = await auth.smtp.waitForMail(email);
    expect(mail.text).to.include("váš ověřovací kód je");
    expect(pinIn(mail)).to.match(/^\d{6}$/);
    const event = await auth.events.waitFor((recorded) => recorded.event.data.recipient === email);
    expect(event.event.data.locale).to.equal("cs_CZ");
  });

  it("answers 202 for an email that already has an account, and sends it nothing", async () => {
    const email = newEmail("taken");
    await auth.onboard(email, PASSWORD);
    const mailsBefore = auth.smtp.mailsTo(email).length;
    const again = await register(email);
    expect(again.status).to.equal(202);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(auth.smtp.mailsTo(email).length).to.equal(mailsBefore);
  });

  it("names every bad field of a registration", async () => {
    const answer = await auth.call("POST", "/auth/register", {
      body: { email: "nope", ui_locale: "de", invoice_count: "many", company: 7 },
      address: newAddress(),
    });
    expect(answer.status).to.equal(400);
    expect(answer.body.errors.map((error: { path: string }) => error.path).sort()).to.deep.equal([
      "company",
      "email",
      "invoice_count",
      "phone",
      "ui_locale",
    ]);
  });

  it("burns a PIN after five wrong tries, and a new registration replaces the PIN", async () => {
    const email = newEmail("pin-tries");
    const address = newAddress();
    await register(email, {}, address);
    const pin = pinIn(await auth.smtp.waitForMail(email));
    const wrong = pin === "000000" ? "111111" : "000000";
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const answer = await auth.call("POST", "/auth/verify-onboarding-pin", { body: { email, pin: wrong }, address });
      expect(answer.status).to.equal(401);
      expect(answer.body.code).to.equal("invalid_pin");
    }
    const burned = await auth.call("POST", "/auth/verify-onboarding-pin", { body: { email, pin }, address });
    expect(burned.status).to.equal(401);

    await register(email, {}, address);
    const secondPin = pinIn(await auth.smtp.waitForMail(email, 2));
    if (secondPin !== pin) {
      const old = await auth.call("POST", "/auth/verify-onboarding-pin", { body: { email, pin }, address: newAddress() });
      expect(old.status).to.equal(401);
    }
    const fresh = await auth.call("POST", "/auth/verify-onboarding-pin", { body: { email, pin: secondPin }, address: newAddress() });
    expect(fresh.status).to.equal(200);
  });

  it("refuses a PIN after ten minutes, and answers an unknown email like a wrong PIN", async () => {
    const email = newEmail("pin-expiry");
    await register(email);
    const pin = pinIn(await auth.smtp.waitForMail(email));
    auth.clock.advance(10 * 60 + 1);
    const expired = await auth.call("POST", "/auth/verify-onboarding-pin", { body: { email, pin }, address: newAddress() });
    expect(expired.status).to.equal(401);
    const unknown = await auth.call("POST", "/auth/verify-onboarding-pin", {
      body: { email: newEmail("ghost"), pin },
      address: newAddress(),
    });
    expect(unknown.status).to.equal(401);
    expect(unknown.body.detail).to.equal(expired.body.detail);
    expect(unknown.body.code).to.equal(expired.body.code);
  });

  it("refuses an invitation token after fifteen minutes and a password outside 10 to 128 characters", async () => {
    const email = newEmail("invitation-expiry");
    const address = newAddress();
    await register(email, {}, address);
    const pin = pinIn(await auth.smtp.waitForMail(email));
    const token = (await auth.call("POST", "/auth/verify-onboarding-pin", { body: { email, pin }, address })).body.data.invitation_token;

    const short = await auth.call("POST", "/auth/change-password", { body: { token, password: "too short" }, address });
    expect(short.status).to.equal(400);
    expect(short.body.errors[0].path).to.equal("password");
    const long = await auth.call("POST", "/auth/change-password", { body: { token, password: "x".repeat(129) }, address });
    expect(long.status).to.equal(400);

    auth.clock.advance(15 * 60 + 1);
    const expired = await auth.call("POST", "/auth/change-password", { body: { token, password: PASSWORD }, address });
    expect(expired.status).to.equal(401);
    expect(expired.body.code).to.equal("invalid_token");
    const inspect = await auth.call("GET", `/auth/password-change-token?token=${token}`, { address });
    expect(inspect.status).to.equal(401);
  });

  it("never writes a mailed token, PIN or password into its logs", () => {
    const logs = auth.logs.join("\n");
    expect(logs).to.include('"service":"auth"');
    expect(logs).to.not.include(PASSWORD);
    for (const mail of auth.smtp.mails) {
      const token = /token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
      if (token) expect(logs).to.not.include(token);
      const pin = /(?:code is|kód je) (\d{6})/.exec(mail.text)?.[1];
      if (pin) expect(logs).to.not.match(new RegExp(`"[a-z_]*":"?${pin}"?[,}]`));
    }
  });
});
