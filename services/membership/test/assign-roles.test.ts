import { randomUUID } from "node:crypto";
import { NotFoundError } from "@docex/kit/errors";
import { expect } from "chai";
import { MembershipHarness, type Person } from "./support/harness.js";

describe("assign-roles: invitations through auth (a gRPC double of auth), atomic batches, last-owner protection", () => {
  let h: MembershipHarness;

  before(async () => {
    h = await MembershipHarness.start();
  });

  after(async () => {
    await h?.stop();
  });

  const assign = (organizationId: string, as: Person, body: unknown) =>
    h.call("POST", `/organizations/${organizationId}/assign-roles`, { as, body });

  /** What must not move when a batch is refused: the member list, invitations sent, events published. */
  async function snapshot(organizationId: string, as: Person) {
    await new Promise((resolve) => setTimeout(resolve, 150));
    return {
      members: await h.memberships(organizationId, as),
      invitations: h.auth.invitations.length,
      events: h.events.filter((event) => event.organization_id === organizationId).length,
    };
  }

  it("invites a new email: auth creates the user and mails the invitation; the membership is invited and grants nothing", async () => {
    const { organization, owner } = await h.team([]);
    const email = `Newcomer-${randomUUID()}@Example.test`;
    const queue = h.queues.add(randomUUID(), organization.id);
    const answer = await assign(organization.id, owner, [{ operation: "invite", email, role: "editor", queue_ids: [queue] }]);
    expect(answer.status).to.equal(200);

    const invitation = h.auth.invitations.at(-1)!;
    const { expires_at, ...sent } = invitation;
    expect(sent).to.deep.equal({
      email: email.toLowerCase(),
      organization_id: organization.id,
      organization_name: organization.name,
      invited_by: owner.id,
      locale: "",
    });
    expect((Date.parse(expires_at) - Date.now()) / 86_400_000).to.be.within(6.99, 7.01);
    const user = h.auth.byEmail(email)!;
    const entry = answer.body.data.find((member: { user_id: string }) => member.user_id === user.id);
    expect(entry).to.deep.equal({
      user_id: user.id,
      email: email.toLowerCase(),
      name: null,
      role: "editor",
      queue_ids: [queue],
      status: "invited",
      is_manageable: true,
    });
    const invitedEvent = await h.waitForEvent((event) => event.type === "membership.changed" && event.data.user_id === user.id);
    expect(invitedEvent.data).to.deep.equal({
      organization_id: organization.id,
      user_id: user.id,
      role: "editor",
      previous_role: null,
      queue_ids: [queue],
      status: "invited",
    });

    // Setting a password in auth is no acceptance: the membership stays invited until AcceptInvitation.
    h.auth.setStatus(user.id, "active");
    const after = await h.memberships(organization.id, owner);
    expect(after.find((member) => member.user_id === user.id)).to.include({ status: "invited", name: null });
    expect(await h.grpc.getRoles({ user_id: user.id, organization_id: organization.id })).to.deep.equal({
      role: "",
      queue_ids: [],
      all_queues: false,
      status: "",
    });

    expect(await h.accept(organization.id, { id: user.id, email: user.email }, "Newcomer")).to.equal(true);
    const activeEvent = await h.waitForEvent(
      (event) => event.type === "membership.changed" && event.data.user_id === user.id && event.data.status === "active",
    );
    expect(activeEvent.data).to.include({ role: "editor", previous_role: "editor" });
    const roles = await h.grpc.getRoles({ user_id: user.id, organization_id: organization.id });
    expect(roles).to.deep.equal({ role: "editor", queue_ids: [queue], all_queues: false, status: "active" });
    const accepted = await h.memberships(organization.id, owner);
    expect(accepted.find((member) => member.user_id === user.id)).to.include({ status: "active", name: "Newcomer" });
  });

  it("answers an invitation of a registered email exactly as one of an unknown email: invited, no name, same calls", async () => {
    const { organization, owner } = await h.team([]);
    const registered = h.person("registered");
    const unknown = `unknown-${randomUUID()}@example.test`;
    const lookupsBefore = h.auth.lookups.length;
    const invitationsBefore = h.auth.invitations.length;
    const answer = await assign(organization.id, owner, [
      { operation: "invite", email: registered.email, role: "viewer" },
      { operation: "invite", email: unknown, role: "viewer" },
    ]);
    expect(answer.status).to.equal(200);
    const entryOf = (email: string) => {
      const { user_id, email: shown, ...rest } = answer.body.data.find((member: { email: string }) => member.email === email);
      expect(user_id).to.be.a("string");
      expect(shown).to.equal(email);
      return rest;
    };
    expect(entryOf(registered.email)).to.deep.equal({
      name: null,
      role: "viewer",
      queue_ids: null,
      status: "invited",
      is_manageable: true,
    });
    expect(entryOf(unknown)).to.deep.equal(entryOf(registered.email));
    // The same request to auth for both, and no lookup of the registered user's profile.
    const sent = h.auth.invitations.slice(invitationsBefore).map(({ email, ...rest }) => rest);
    expect(sent).to.have.length(2);
    expect(sent[0]).to.deep.equal(sent[1]);
    expect(h.auth.lookups.slice(lookupsBefore)).not.to.include(registered.id);
    // Reading the list later does not look the registered user up either.
    const listed = await h.memberships(organization.id, owner);
    expect(listed.find((member) => member.user_id === registered.id)).to.include({ name: null, status: "invited" });
    expect(h.auth.lookups).not.to.include(registered.id);
    // Events alike: both invited.
    for (const userId of [registered.id, h.auth.byEmail(unknown)!.id]) {
      const event = await h.waitForEvent((recorded) => recorded.type === "membership.changed" && recorded.data.user_id === userId);
      expect(event.data).to.include({ status: "invited", role: "viewer", previous_role: null });
    }
  });

  it("keeps an existing user out until they accept: no roles, no permission, no organization; then a member", async () => {
    const { organization, owner } = await h.team([]);
    const known = h.person("known");
    expect((await assign(organization.id, owner, [{ operation: "invite", email: known.email, role: "supervisor" }])).status).to.equal(200);
    const check = () => h.grpc.checkPermission({ user_id: known.id, organization_id: organization.id, permission: "document.read" });
    expect(await check()).to.deep.equal({ allowed: false, is_member: false, role: "" });
    expect((await h.grpc.listOrganizationsOfUser({ user_id: known.id })).organizations).to.deep.equal([]);
    expect((await h.call("GET", `/organizations/${organization.id}`, { as: known })).status).to.equal(404);
    expect((await h.call("GET", `/organizations/${organization.id}/raw-memberships`, { as: known })).status).to.equal(404);
    expect((await h.call("GET", "/organizations", { as: known })).body.data).to.deep.equal([]);
    // A pending supervisor invitation is nobody who may manage users.
    const meanwhile = await assign(organization.id, known, [
      { operation: "invite", email: `x-${randomUUID()}@example.test`, role: "viewer" },
    ]);
    expect(meanwhile.status).to.equal(404);

    expect(await h.accept(organization.id, known, "known")).to.equal(true);
    expect(await check()).to.deep.equal({ allowed: true, is_member: true, role: "supervisor" });
    expect((await h.grpc.listOrganizationsOfUser({ user_id: known.id })).organizations.map((o) => o.id)).to.deep.equal([organization.id]);
    expect((await h.call("GET", `/organizations/${organization.id}`, { as: known })).status).to.equal(200);
    // Accepting again changes nothing; a user without an invitation, or of another organization, is NOT_FOUND.
    expect(await h.accept(organization.id, known)).to.equal(false);
    const stranger = h.person("stranger");
    const refused = await h.accept(organization.id, stranger).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(NotFoundError);
  });

  it("invites a pending member again (new role, later expiry); a removed invitation can no longer be accepted", async () => {
    const { organization, owner } = await h.team([]);
    const email = `pending-${randomUUID()}@example.test`;
    await assign(organization.id, owner, [{ operation: "invite", email, role: "viewer" }]);
    const before = h.auth.invitations.length;
    const again = await assign(organization.id, owner, [{ operation: "invite", email, role: "approver" }]);
    expect(again.status).to.equal(200);
    expect(h.auth.invitations.length).to.equal(before + 1);
    expect(again.body.data.find((member: { email: string }) => member.email === email)).to.include({ role: "approver", status: "invited" });

    const pending = h.auth.byEmail(email)!;
    expect((await assign(organization.id, owner, [{ operation: "remove", user_id: pending.id }])).status).to.equal(200);
    const refused = await h.accept(organization.id, { id: pending.id, email }).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(NotFoundError);

    const known = h.person("known");
    await assign(organization.id, owner, [{ operation: "invite", email: known.email, role: "viewer" }]);
    await h.accept(organization.id, known);
    const twice = await assign(organization.id, owner, [{ operation: "invite", email: known.email, role: "editor" }]);
    expect(twice.status).to.equal(409);
    expect(twice.body).to.include({ code: "membership_conflict" });
    expect(twice.body.errors).to.deep.equal([
      { path: "0.email", message: "This user is already a member; change their role with set_role." },
    ]);
  });

  it("changes nothing when one entry of a batch is invalid (400 naming its index): no member, no invitation, no event", async () => {
    const { organization, owner, members } = await h.team(["editor", "viewer"]);
    const [editor, viewer] = members as [Person, Person];
    const before = await snapshot(organization.id, owner);
    const answer = await assign(organization.id, owner, [
      { operation: "set_role", user_id: editor.id, role: "admin" },
      { operation: "invite", email: `fresh-${randomUUID()}@example.test`, role: "viewer" },
      { operation: "remove", user_id: viewer.id },
      { operation: "set_role", user_id: viewer.id, role: "boss" },
    ]);
    expect(answer.status).to.equal(400);
    expect(answer.body.errors.map((error: { path: string }) => error.path)).to.deep.equal(["3.role"]);
    expect(await snapshot(organization.id, owner)).to.deep.equal(before);
  });

  it("names each invalid entry: unknown member, duplicate user, queue_ids for an owner, missing or misplaced fields", async () => {
    const { organization, owner, members } = await h.team(["editor"]);
    const editor = members[0]!;
    const before = await snapshot(organization.id, owner);
    const answer = await assign(organization.id, owner, [
      { operation: "set_role", user_id: randomUUID(), role: "viewer" },
      { operation: "set_role", user_id: editor.id, role: "viewer" },
      { operation: "remove", user_id: editor.id },
      { operation: "invite", email: `x-${randomUUID()}@example.test`, role: "owner", queue_ids: [randomUUID()] },
    ]);
    expect(answer.status).to.equal(400);
    expect(answer.body).to.include({ code: "invalid_role_operations" });
    expect(answer.body.detail).to.match(/^Entry 0: This user is not a member of the organization\./);
    expect(answer.body.errors).to.deep.equal([
      { path: "0.user_id", message: "This user is not a member of the organization." },
      { path: "2.user_id", message: "The same user is already changed by entry 1." },
      { path: "3.queue_ids", message: "queue_ids apply to admin, editor, approver and viewer; an owner always has every queue." },
    ]);

    const shapes = await assign(organization.id, owner, [
      { operation: "invite", role: "viewer" },
      { operation: "set_role", user_id: editor.id },
      { operation: "remove", email: "someone@example.test" },
      { operation: "promote", user_id: editor.id },
    ]);
    expect(shapes.status).to.equal(400);
    expect(shapes.body.errors.map((error: { path: string }) => error.path)).to.deep.equal([
      "0.email",
      "1.role",
      "2.user_id",
      "2.email",
      "3.operation",
    ]);
    for (const body of [[], {}, "nope"]) expect((await assign(organization.id, owner, body)).status).to.equal(400);
    expect(await snapshot(organization.id, owner)).to.deep.equal(before);
  });

  it("changes nothing when one entry is forbidden (403 naming its index)", async () => {
    const { organization, owner, members } = await h.team(["admin", "editor", "supervisor"]);
    const [admin, editor, supervisor] = members as [Person, Person, Person];
    const before = await snapshot(organization.id, owner);
    const answer = await assign(organization.id, admin, [
      { operation: "set_role", user_id: editor.id, role: "viewer" },
      { operation: "invite", email: `y-${randomUUID()}@example.test`, role: "viewer" },
      { operation: "set_role", user_id: supervisor.id, role: "viewer" },
      { operation: "set_role", user_id: editor.id, role: "viewer" },
    ]);
    // Entry 3 repeats the user of entry 0: invalid comes first.
    expect(answer.status).to.equal(400);
    const forbidden = await assign(organization.id, admin, [
      { operation: "set_role", user_id: editor.id, role: "viewer" },
      { operation: "invite", email: `y-${randomUUID()}@example.test`, role: "viewer" },
      { operation: "set_role", user_id: supervisor.id, role: "viewer" },
      { operation: "invite", email: `z-${randomUUID()}@example.test`, role: "admin" },
    ]);
    expect(forbidden.status).to.equal(403);
    expect(forbidden.body).to.include({ code: "forbidden_role_operations" });
    expect(forbidden.body.errors).to.deep.equal([
      { path: "2.user_id", message: "Your role may not change a member who is supervisor." },
      { path: "3.role", message: "Your role may not give the role admin with these queues." },
    ]);
    expect(await snapshot(organization.id, owner)).to.deep.equal(before);
  });

  it("protects the last owner: 409 when the only owner demotes or removes themselves; another owner may be demoted", async () => {
    const { organization, owner } = await h.team([]);
    for (const body of [[{ operation: "set_role", user_id: owner.id, role: "admin" }], [{ operation: "remove", user_id: owner.id }]]) {
      const answer = await assign(organization.id, owner, body);
      expect(answer.status).to.equal(409);
      expect(answer.body).to.include({ code: "last_owner" });
      expect(answer.body.errors).to.have.length(1);
      expect(answer.body.errors[0].path).to.equal("0");
      expect(answer.body.errors[0].message).to.match(/^The last owner of the organization cannot be (demoted|removed)\.$/);
    }

    const second = h.person("second-owner");
    expect((await assign(organization.id, owner, [{ operation: "invite", email: second.email, role: "owner" }])).status).to.equal(200);
    // A pending owner is no owner yet: the only owner still cannot leave.
    expect((await assign(organization.id, owner, [{ operation: "remove", user_id: owner.id }])).status).to.equal(409);
    await h.accept(organization.id, second);
    // With another owner present, changing oneself is still not allowed: nobody manages themselves.
    const selfDemotion = await assign(organization.id, owner, [{ operation: "set_role", user_id: owner.id, role: "admin" }]);
    expect(selfDemotion.status).to.equal(403);
    const demoted = await assign(organization.id, second, [{ operation: "set_role", user_id: owner.id, role: "supervisor" }]);
    expect(demoted.status).to.equal(200);
    const members = await h.memberships(organization.id, second);
    expect(members.map((member) => [member.user_id, member.role])).to.have.deep.members([
      [owner.id, "supervisor"],
      [second.id, "owner"],
    ]);
    const lastOne = await assign(organization.id, second, [{ operation: "remove", user_id: second.id }]);
    expect(lastOne.status).to.equal(409);
  });

  it("serializes batches of one organization: two owners demoting each other at the same moment leave one owner", async () => {
    for (let round = 0; round < 3; round += 1) {
      const { organization, owner, members } = await h.team(["owner"]);
      const other = members[0]!;
      const answers = await Promise.all([
        assign(organization.id, owner, [{ operation: "set_role", user_id: other.id, role: "admin" }]),
        assign(organization.id, other, [{ operation: "set_role", user_id: owner.id, role: "admin" }]),
      ]);
      // The second batch is planned after the first committed: its caller is no longer an owner.
      expect(answers.map((answer) => answer.status).sort()).to.deep.equal([200, 403]);
      const roles = (await h.memberships(organization.id, answers[0]!.status === 200 ? owner : other)).map((member) => member.role);
      expect(roles.sort()).to.deep.equal(["admin", "owner"]);
    }
  });

  it("answers 404 for queue_ids naming a queue that does not exist or is another organization's, and changes nothing", async () => {
    const { organization, owner, members } = await h.team(["editor"]);
    const elsewhere = h.queues.add(randomUUID(), randomUUID());
    const own = h.queues.add(randomUUID(), organization.id);
    const before = await snapshot(organization.id, owner);
    for (const stranger of [randomUUID(), elsewhere]) {
      const answer = await assign(organization.id, owner, [
        { operation: "set_role", user_id: members[0]!.id, role: "viewer", queue_ids: [own] },
        { operation: "invite", email: h.person("queued").email, role: "editor", queue_ids: [own, stranger] },
      ]);
      expect(answer.status).to.equal(404);
      expect(answer.body.code).to.equal("queue_not_found");
      expect(answer.body.detail).to.include(stranger);
    }
    expect(await snapshot(organization.id, owner)).to.deep.equal(before);
  });

  it("keeps queue_ids when set_role leaves them out, gives every queue with null, and drops them for a supervisor", async () => {
    const queue = randomUUID();
    const { organization, owner, members } = await h.team(["editor"], { 0: [queue] });
    const editor = members[0]!;
    const roleOf = async () => (await h.memberships(organization.id, owner)).find((member) => member.user_id === editor.id)!;
    await assign(organization.id, owner, [{ operation: "set_role", user_id: editor.id, role: "viewer" }]);
    expect(await roleOf())
      .to.include({ role: "viewer" })
      .and.deep.include({ queue_ids: [queue] });
    await assign(organization.id, owner, [{ operation: "set_role", user_id: editor.id, role: "viewer", queue_ids: null }]);
    expect(await roleOf()).to.deep.include({ queue_ids: null });
    await assign(organization.id, owner, [{ operation: "set_role", user_id: editor.id, role: "admin", queue_ids: [queue] }]);
    await assign(organization.id, owner, [{ operation: "set_role", user_id: editor.id, role: "supervisor" }]);
    expect(await roleOf()).to.deep.include({ role: "supervisor", queue_ids: null });
  });

  it("removes a member: gone from the list and from GetRoles, with membership.changed status removed", async () => {
    const { organization, owner, members } = await h.team(["viewer"]);
    const viewer = members[0]!;
    const answer = await assign(organization.id, owner, [{ operation: "remove", user_id: viewer.id }]);
    expect(answer.status).to.equal(200);
    expect(answer.body.data.map((member: { user_id: string }) => member.user_id)).to.deep.equal([owner.id]);
    expect(await h.grpc.getRoles({ user_id: viewer.id, organization_id: organization.id })).to.include({ role: "" });
    const removed = await h.waitForEvent(
      (event) => event.type === "membership.changed" && event.data.user_id === viewer.id && event.data.status === "removed",
    );
    expect(removed.data).to.include({ role: null, previous_role: "viewer" });
    expect((await h.call("GET", `/organizations/${organization.id}`, { as: viewer })).status).to.equal(404);
  });

  it("changes nothing and answers 503 when auth is down while inviting", async () => {
    const { organization, owner, members } = await h.team(["editor"]);
    const before = await snapshot(organization.id, owner);
    h.auth.available = false;
    try {
      const answer = await assign(organization.id, owner, [
        { operation: "set_role", user_id: members[0]!.id, role: "viewer" },
        { operation: "invite", email: `down-${randomUUID()}@example.test`, role: "viewer" },
      ]);
      expect(answer.status).to.equal(503);
      expect(answer.body.code).to.equal("upstream_unavailable");
    } finally {
      h.auth.available = true;
    }
    expect(await snapshot(organization.id, owner)).to.deep.equal(before);
  });
});
