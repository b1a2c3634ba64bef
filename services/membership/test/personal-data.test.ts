import { randomUUID } from "node:crypto";
import { createEvent, type DocexEvent } from "@docex/events";
import { openDatabase, type Sql } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import { eventually } from "@docex/testkit";
import { expect } from "chai";
import { MembershipHarness, type Person } from "./support/harness.js";

describe("erasing a member's personal data (DELETE /organizations/{id}/members/{user_id}/personal-data)", () => {
  let h: MembershipHarness;
  let database: Sql;
  const erasures: DocexEvent<"member.personal_data_erased">[] = [];
  let subscription: { stop(): void };

  before(async () => {
    h = await MembershipHarness.start();
    const url = new URL(h.config.DATABASE_URL);
    url.pathname = `/${h.config.DATABASE_NAME}`;
    database = await openDatabase(url.toString(), { logger: createLogger("membership-test", "silent") });
    subscription = h.bus.broadcast("docex.member.personal_data_erased", (payload) => {
      erasures.push(payload as DocexEvent<"member.personal_data_erased">);
    });
  });

  after(async () => {
    subscription?.stop();
    await database?.close();
    await h?.stop();
  });

  const erase = (organizationId: string, userId: string, as: Person) =>
    h.call("DELETE", `/organizations/${organizationId}/members/${userId}/personal-data`, { as });

  /** What the membership database holds of the person: every row that names them, with its email and name. */
  async function rowsOf(userId: string) {
    const memberships = await database.rows<Record<string, unknown>>(
      `SELECT organization_id, status, invited_email, personal_data_erased_at IS NOT NULL AS erased
       FROM memberships WHERE user_id = $1 ORDER BY organization_id`,
      [userId],
    );
    const profiles = await database.rows<Record<string, unknown>>("SELECT email, name FROM member_profiles WHERE user_id = $1", [userId]);
    return { memberships, profiles };
  }

  it("an owner erases a member of their organization only: the row stays, deactivated, without email or name; the account goes too", async () => {
    const team = await h.team(["editor", "viewer"]);
    const [editor, viewer] = team.members as [Person, Person];
    const before = await rowsOf(editor.id);
    expect(before.memberships).to.have.length(1);
    expect(before.profiles).to.deep.equal([{ email: editor.email, name: "editor" }]);

    expect((await erase(team.organization.id, editor.id, team.owner)).status).to.equal(204);

    const after = await rowsOf(editor.id);
    expect(after.memberships).to.deep.equal([
      { organization_id: team.organization.id, status: "deactivated", invited_email: null, erased: true },
    ]);
    expect(after.profiles).to.deep.equal([{ email: null, name: null }]);
    const listed = (await h.memberships(team.organization.id, team.owner)).find((member) => member.user_id === editor.id);
    expect(listed).to.include({ status: "deactivated", email: null, name: null });
    // The viewer is untouched.
    expect((await h.memberships(team.organization.id, team.owner)).find((member) => member.user_id === viewer.id)).to.include({
      status: "active",
      email: viewer.email,
    });
    const erased = await eventually(() => erasures.find((event) => event.data.user_id === editor.id), 5_000);
    expect(erased).to.deep.include({ organization_id: team.organization.id, actor_user_id: team.owner.id });
    expect(erased.data).to.deep.equal({ organization_id: team.organization.id, user_id: editor.id, account_erased: true });
    const deactivated = await h.waitForEvent(
      (event) =>
        event.type === "membership.changed" &&
        (event.data as { user_id: string }).user_id === editor.id &&
        (event.data as { status: string }).status === "deactivated",
    );
    expect(deactivated.organization_id).to.equal(team.organization.id);
    // The erased member no longer sees the organization.
    expect((await h.call("GET", `/organizations/${team.organization.id}`, { as: editor })).status).to.equal(404);
  });

  it("a person who is also in another organization keeps their account and that organization's data", async () => {
    const a = await h.team(["editor"]);
    const person = a.members[0]!;
    const b = await h.team([]);
    const invited = await h.call("POST", `/organizations/${b.organization.id}/assign-roles`, {
      as: b.owner,
      body: [{ operation: "invite", email: person.email, role: "viewer" }],
    });
    expect(invited.status).to.equal(200);
    await h.accept(b.organization.id, person, "editor");

    expect((await erase(a.organization.id, person.id, a.owner)).status).to.equal(204);
    const after = await rowsOf(person.id);
    const byOrganization = Object.fromEntries(after.memberships.map((row) => [row.organization_id, row]));
    expect(byOrganization[a.organization.id]).to.include({ status: "deactivated", erased: true });
    expect(byOrganization[b.organization.id]).to.include({ status: "active", erased: false });
    expect(after.profiles).to.deep.equal([{ email: person.email, name: "editor" }]);
    expect((await h.memberships(b.organization.id, b.owner)).find((member) => member.user_id === person.id)).to.include({
      email: person.email,
    });
    const erased = await eventually(() => erasures.find((event) => event.data.user_id === person.id), 5_000);
    expect(erased.data.account_erased).to.equal(false);
  });

  it("only owners erase (403); another organization's member, an unknown id or not a UUID is 404; an owner is 409; nothing changes", async () => {
    const team = await h.team(["supervisor", "admin", "editor"]);
    const [supervisor, admin, editor] = team.members as [Person, Person, Person];
    const other = await h.team(["editor"]);
    const before = await rowsOf(editor.id);
    for (const caller of [supervisor, admin, editor]) {
      const answer = await erase(team.organization.id, editor.id, caller);
      expect(answer.status, caller.email).to.equal(403);
      expect(answer.headers.get("content-type")).to.match(/problem\+json/);
    }
    // Organization B's owner names A's member through B, and A through B's eyes: 404 both ways.
    expect((await erase(other.organization.id, editor.id, other.owner)).body).to.include({ status: 404, code: "member_not_found" });
    expect((await erase(team.organization.id, editor.id, other.owner)).body).to.include({ status: 404, code: "organization_not_found" });
    for (const userId of [randomUUID(), "not-a-uuid"]) {
      expect((await erase(team.organization.id, userId, team.owner)).status, userId).to.equal(404);
    }
    const owner = await erase(team.organization.id, team.owner.id, team.owner);
    expect(owner.status).to.equal(409);
    expect(owner.body.code).to.equal("owner_membership");
    expect((await h.call("DELETE", `/organizations/${team.organization.id}/members/${editor.id}/personal-data`)).status).to.equal(401);
    expect(await rowsOf(editor.id)).to.deep.equal(before);
    expect(erasures.filter((event) => event.data.user_id === editor.id)).to.deep.equal([]);
  });

  it("user.personal_data_erased (DELETE /auth/me) erases the person's memberships in every organization, once", async () => {
    const a = await h.team(["editor"]);
    const person = a.members[0]!;
    const b = await h.team([]);
    await h.call("POST", `/organizations/${b.organization.id}/assign-roles`, {
      as: b.owner,
      body: [{ operation: "invite", email: person.email, role: "viewer" }],
    });
    const event = createEvent("user.personal_data_erased", {
      organization_id: null,
      data: { user_id: person.id },
      actor_user_id: person.id,
    });
    await h.bus.publish("docex.user.personal_data_erased", event, { msgId: event.id });
    const after = await eventually(async () => {
      const rows = await rowsOf(person.id);
      return rows.memberships.every((row) => row.erased) ? rows : undefined;
    }, 10_000);
    expect(after.memberships.map((row) => [row.status, row.invited_email])).to.deep.equal([
      ["deactivated", null],
      ["deactivated", null],
    ]);
    expect(after.profiles).to.deep.equal([{ email: null, name: null }]);
    for (const organization of [a.organization, b.organization]) {
      const owner = organization.id === a.organization.id ? a.owner : b.owner;
      expect((await h.memberships(organization.id, owner)).find((member) => member.user_id === person.id)).to.include({
        email: null,
        name: null,
      });
    }
    // Each membership's deactivation (the active one in A, the pending invitation in B) is announced once, redelivery or not.
    await h.waitForEvent(
      (recorded) =>
        recorded.type === "membership.changed" &&
        recorded.organization_id === a.organization.id &&
        (recorded.data as { status: string }).status === "deactivated",
    );
    await h.bus.publish("docex.user.personal_data_erased", event, { msgId: randomUUID() });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const announced = h.events.filter(
      (recorded) =>
        recorded.type === "membership.changed" &&
        (recorded.data as { user_id: string; status: string }).user_id === person.id &&
        (recorded.data as { status: string }).status === "deactivated",
    );
    expect(announced.map((recorded) => recorded.organization_id)).to.have.members([a.organization.id, b.organization.id]);
  });
});
