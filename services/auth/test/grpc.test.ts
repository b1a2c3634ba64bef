import { NotFoundError, ValidationError } from "@docex/kit";
import { type AuthClient, createAuthClient } from "@docex/protos";
import { tokenIn } from "@docex/testkit";
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
    client = createAuthClient(`127.0.0.1:${auth.running.grpcPort}`);
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

  it("CreateInvitation creates an invited user and mails a token that sets the first password", async () => {
    const invitee = newEmail("invitee");
    const answer = await client.createInvitation(
      { email: invitee, organization_id: ORGANIZATION_ID, invited_by: userId, locale: "cs", organization_name: "Acme" },
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
    const changed = await auth.call("POST", "/auth/change-password", {
      body: { token, password: "invited person pw" },
      address: newAddress(),
    });
    expect(changed.status).to.equal(200);
    expect((await auth.verifier().verify(changed.body.data.access_token)).amr).to.deep.equal(["invite"]);
    expect((await client.getUser({ user_id: answer.user_id })).user?.status).to.equal("active");

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

  it("CreateInvitation of a user who has a password only answers their id, and mails nothing", async () => {
    const before = auth.smtp.mailsTo(email).length;
    const answer = await client.createInvitation({
      email,
      organization_id: ORGANIZATION_ID,
      invited_by: userId,
      locale: "",
      organization_name: "",
    });
    expect(answer).to.deep.equal({ user_id: userId, created: false });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(auth.smtp.mailsTo(email).length).to.equal(before);
  });

  it("CreateInvitation refuses an invalid email with INVALID_ARGUMENT", async () => {
    const failure = await client
      .createInvitation({ email: "not an email", organization_id: ORGANIZATION_ID, invited_by: userId, locale: "", organization_name: "" })
      .catch((error: unknown) => error);
    expect(failure).to.be.instanceOf(ValidationError);
  });
});
