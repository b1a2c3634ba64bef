import { NotFoundError, ValidationError } from "@docex/kit/errors";
import { type AuthClient, createAuthClient } from "@docex/protos";
import { testGrpcIdentity, tokenIn } from "@docex/testkit";
import { expect } from "chai";
import { AuthHarness, newAddress, newEmail } from "./support/auth-harness.js";

const PASSWORD = "grpc user password";
const ORGANIZATION_ID = "8d0c7a3e-6a49-4d43-9a55-0f1b2a3c4d5e";

describe("gRPC docex.auth.v1.Auth", () => {
  let auth: AuthHarness;
  let client: AuthClient;
  let email: string;
  let userId: string;

  before(async () => {
    auth = await AuthHarness.start();
    client = createAuthClient(`127.0.0.1:${auth.running.grpcPort}`, { identity: testGrpcIdentity("membership") });
    email = newEmail("grpc");
    ({ userId } = await auth.onboard(email, PASSWORD));
  });

  after(async () => {
    client?.close();
    await auth?.stop();
  });

  it("GetUser answers the user, and NOT_FOUND for an unknown or malformed id", async () => {
    const { user } = await client.getUser({ user_id: userId });
    expect(user).to.include({ id: userId, email, status: "active", totp_enabled: false, name: "" });
    expect(Date.parse(user!.created_at)).to.be.greaterThan(0);
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const failure = await client.getUser({ user_id: id }).catch((error: unknown) => error);
      expect(failure).to.be.instanceOf(NotFoundError);
    }
  });

  it("FindUserByEmail matches case-insensitively and answers found = false for an unknown email", async () => {
    const found = await client.findUserByEmail({ email: email.toUpperCase() });
    expect(found.found).to.equal(true);
    expect(found.user?.id).to.equal(userId);
    const missing = await client.findUserByEmail({ email: newEmail("nobody") });
    expect(missing).to.deep.equal({ found: false, user: null });
  });

  it("CreateInvitation creates an invited user and mails a token that sets the first password and accepts the invitation", async () => {
    const invitee = newEmail("invitee");
    const answer = await client.createInvitation(
      { email: invitee, organization_id: ORGANIZATION_ID, invited_by: userId, locale: "cs", organization_name: "Acme", expires_at: "" },
      { requestId: "invite-request-1" },
    );
    expect(answer.created).to.equal(true);
    const { user } = await client.getUser({ user_id: answer.user_id });
    expect(user).to.include({ email: invitee, status: "invited" });

    const mail = await auth.smtp.waitForMail(invitee);
    expect(mail.text).to.include(`${email} vás zve do Acme v docex.`);
    const token = tokenIn(mail);
    const inspected = await auth.call("GET", `/auth/password-change-token?token=${token}`);
    expect(inspected.body.data).to.include({ email: invitee, purpose: "invitation" });
    // Without an expiry from membership, an invitation lasts 7 days.
    const days = (Date.parse(inspected.body.data.expires_at) - auth.clock.now().getTime()) / 86_400_000;
    expect(days).to.be.within(6.99, 7.01);
    auth.membership.openInvitation(ORGANIZATION_ID, answer.user_id);
    const changed = await auth.call("POST", "/auth/change-password", {
      body: { token, password: "invited person pw" },
      address: newAddress(),
    });
    expect(changed.status).to.equal(200);
    expect((await auth.verifier().verify(changed.body.data.access_token)).amr).to.deep.equal(["invite"]);
    expect((await client.getUser({ user_id: answer.user_id })).user?.status).to.equal("active");
    expect(auth.membership.acceptances.map((call) => [call.organization_id, call.user_id, call.email])).to.deep.include([
      ORGANIZATION_ID,
      answer.user_id,
      invitee,
    ]);

    const event = await auth.events.waitFor((recorded) => recorded.event.data.recipient === invitee);
    expect(event.event).to.include({ type: "auth.mail_requested", request_id: "invite-request-1" });
    expect(event.event.data).to.include({ template: "invitation", locale: "cs" });
    // An invitee joins the inviting organization; they did not onboard a company of their own.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(
      auth.events.events.some(
        (recorded) => recorded.event.type === "auth.user_onboarded" && recorded.event.data.user_id === answer.user_id,
      ),
    ).to.equal(false);
  });

  it("CreateInvitation of a user who has a password mails a token that only accepts, once, through accept-invitation", async () => {
    const organizationId = crypto.randomUUID();
    const before = auth.smtp.mailsTo(email).length;
    const answer = await client.createInvitation({
      email,
      organization_id: organizationId,
      invited_by: userId,
      locale: "",
      organization_name: "Acme",
      expires_at: new Date(auth.clock.now().getTime() + 3 * 86_400_000).toISOString(),
    });
    expect(answer).to.deep.equal({ user_id: userId, created: false });
    const mail = await auth.smtp.waitForMail(email, before + 1);
    expect(mail.text).to.include("/auth/accept-invitation?token=");
    expect(mail.text).to.include("expires in 3 days");
    const token = tokenIn(mail);

    // It is no password reset: it sets no password and is not offered as one.
    expect((await auth.call("GET", `/auth/password-change-token?token=${token}`)).status).to.equal(401);
    const reset = await auth.call("POST", "/auth/change-password", { body: { token, password: "taken over pw 1" }, address: newAddress() });
    expect(reset.status).to.equal(401);

    auth.membership.openInvitation(organizationId, userId);
    const accepted = await auth.call("POST", "/auth/accept-invitation", { body: { token }, address: newAddress() });
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
    expect(accepted.body.data).to.deep.equal({ organization_id: organizationId });
    expect(auth.membership.acceptances.filter((call) => call.organization_id === organizationId)).to.have.length(1);
    expect(auth.membership.acceptances.at(-1)).to.include({ user_id: userId, email });

    const again = await auth.call("POST", "/auth/accept-invitation", { body: { token }, address: newAddress() });
    expect(again.status).to.equal(401);
    expect(again.body.code).to.equal("invalid_token");
    expect(auth.membership.acceptances.filter((call) => call.organization_id === organizationId)).to.have.length(1);
    // The password is untouched.
    expect((await auth.call("POST", "/auth/login", { body: { email, password: PASSWORD }, address: newAddress() })).status).to.equal(200);
  });

  it("refuses an expired invitation token, and one whose invitation membership no longer has (using it up)", async () => {
    const expiring = crypto.randomUUID();
    const withdrawn = crypto.randomUUID();
    const invite = async (organizationId: string, hours: number) => {
      const count = auth.smtp.mailsTo(email).length;
      await client.createInvitation({
        email,
        organization_id: organizationId,
        invited_by: userId,
        locale: "",
        organization_name: "",
        expires_at: new Date(auth.clock.now().getTime() + hours * 3_600_000).toISOString(),
      });
      return tokenIn(await auth.smtp.waitForMail(email, count + 1));
    };
    const expiringToken = await invite(expiring, 1);
    const withdrawnToken = await invite(withdrawn, 48);
    auth.membership.openInvitation(expiring, userId);

    auth.clock.advance(3_601);
    const expired = await auth.call("POST", "/auth/accept-invitation", { body: { token: expiringToken }, address: newAddress() });
    expect(expired.status).to.equal(401);
    expect(auth.membership.acceptances.some((call) => call.organization_id === expiring)).to.equal(false);

    const refused = await auth.call("POST", "/auth/accept-invitation", { body: { token: withdrawnToken }, address: newAddress() });
    expect(refused.status).to.equal(401);
    auth.membership.openInvitation(withdrawn, userId);
    const later = await auth.call("POST", "/auth/accept-invitation", { body: { token: withdrawnToken }, address: newAddress() });
    expect(later.status).to.equal(401);
    expect(auth.membership.acceptances.some((call) => call.organization_id === withdrawn)).to.equal(false);
    for (const token of ["not-a-token-at-all-but-long-enough-0123456789", "x".repeat(43)]) {
      expect((await auth.call("POST", "/auth/accept-invitation", { body: { token }, address: newAddress() })).status).to.equal(401);
    }
  });

  it("leaves an invitation token usable when membership is down (503), so the invitee can retry", async () => {
    const organizationId = crypto.randomUUID();
    const count = auth.smtp.mailsTo(email).length;
    await client.createInvitation({
      email,
      organization_id: organizationId,
      invited_by: userId,
      locale: "",
      organization_name: "",
      expires_at: "",
    });
    const token = tokenIn(await auth.smtp.waitForMail(email, count + 1));
    auth.membership.openInvitation(organizationId, userId);
    auth.membership.available = false;
    try {
      const down = await auth.call("POST", "/auth/accept-invitation", { body: { token }, address: newAddress() });
      expect(down.status).to.be.oneOf([502, 503, 504]);
    } finally {
      auth.membership.available = true;
    }
    const retried = await auth.call("POST", "/auth/accept-invitation", { body: { token }, address: newAddress() });
    expect(retried.status, JSON.stringify(retried.body)).to.equal(200);
  });

  it("CreateInvitation refuses an invalid email with INVALID_ARGUMENT", async () => {
    const failure = await client
      .createInvitation({
        email: "not an email",
        organization_id: ORGANIZATION_ID,
        invited_by: userId,
        locale: "",
        organization_name: "",
        expires_at: "",
      })
      .catch((error: unknown) => error);
    expect(failure).to.be.instanceOf(ValidationError);
  });
});
