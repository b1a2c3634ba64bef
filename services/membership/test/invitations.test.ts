import { randomUUID } from "node:crypto";
import { NotFoundError } from "@docex/kit/errors";
import { expect } from "chai";
import { MembershipHarness, type Person } from "./support/harness.js";

const invite = (email: string, role = "viewer") => ({ operation: "invite", email, role });
const fresh = (label: string) => `${label}-${randomUUID()}@example.test`;

describe("invitation quotas per organization: pending (409) and per day (429 with Retry-After)", () => {
  let h: MembershipHarness;

  before(async () => {
    h = await MembershipHarness.start({}, { INVITATION_MAX_PENDING: 3, INVITATION_MAX_PER_DAY: 5 });
  });

  after(async () => {
    await h?.stop();
  });

  const assign = (organizationId: string, as: Person, body: unknown) =>
    h.call("POST", `/organizations/${organizationId}/assign-roles`, { as, body });

  it("refuses a batch that would leave more pending invitations than allowed, whole, and mails nothing", async () => {
    const { organization, owner } = await h.team([]);
    expect((await assign(organization.id, owner, [invite(fresh("a")), invite(fresh("b"))])).status).to.equal(200);
    const sent = h.auth.invitations.length;
    const over = await assign(organization.id, owner, [invite(fresh("c")), invite(fresh("d"))]);
    expect(over.status).to.equal(409);
    expect(over.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(over.body).to.include({ code: "invitation_quota_exceeded", status: 409 });
    expect(h.auth.invitations.length).to.equal(sent);
    expect(await h.memberships(organization.id, owner)).to.have.length(3);

    // Registered or not, an invitation takes its place alike; accepting one frees it, and so does withdrawing one.
    const known = h.person("known");
    expect((await assign(organization.id, owner, [invite(known.email)])).status).to.equal(200);
    expect((await assign(organization.id, owner, [invite(fresh("e"))])).status).to.equal(409);
    await h.accept(organization.id, known);
    expect((await assign(organization.id, owner, [invite(fresh("f"))])).status).to.equal(200);
    const pending = (await h.memberships(organization.id, owner)).find((member) => member.status === "invited")!;
    const swapped = await assign(organization.id, owner, [{ operation: "remove", user_id: pending.user_id }, invite(fresh("g"))]);
    expect(swapped.status).to.equal(200);
  });

  it("counts invitations sent in 24 hours, invites again included: 429 with Retry-After beyond, nothing changed", async () => {
    const { organization, owner } = await h.team([]);
    const first = fresh("first");
    expect((await assign(organization.id, owner, [invite(first), invite(fresh("second"))])).status).to.equal(200);
    // Invited again: two more sent, still two pending.
    expect((await assign(organization.id, owner, [invite(first, "editor")])).status).to.equal(200);
    expect((await assign(organization.id, owner, [invite(first, "approver")])).status).to.equal(200);
    expect((await assign(organization.id, owner, [invite(first, "viewer")])).status).to.equal(200);
    const sent = h.auth.invitations.length;
    const limited = await assign(organization.id, owner, [invite(first, "editor")]);
    expect(limited.status).to.equal(429);
    expect(limited.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(limited.body.status).to.equal(429);
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).to.be.within(86_000, 86_400);
    expect(h.auth.invitations.length).to.equal(sent);
    const members = await h.memberships(organization.id, owner);
    expect(members.find((member) => member.email === first)).to.include({ role: "viewer" });
    // Another organization has its own quota; role changes are no invitations.
    const other = await h.team([]);
    expect((await assign(other.organization.id, other.owner, [invite(fresh("elsewhere"))])).status).to.equal(200);
    const pending = members.find((member) => member.email === first)!;
    expect((await assign(organization.id, owner, [{ operation: "set_role", user_id: pending.user_id, role: "editor" }])).status).to.equal(
      200,
    );
  });
});

describe("invitations expire (INVITATION_TTL_DAYS)", () => {
  let h: MembershipHarness;

  before(async () => {
    // Two seconds.
    h = await MembershipHarness.start({}, { INVITATION_TTL_DAYS: 2 / 86_400, INVITATION_MAX_PENDING: 1 });
  });

  after(async () => {
    await h?.stop();
  });

  it("refuses to accept an expired invitation, does not count it as pending, and invites again with a new expiry", async () => {
    const { organization, owner } = await h.team([]);
    const known = h.person("late");
    const answer = await h.call("POST", `/organizations/${organization.id}/assign-roles`, { as: owner, body: [invite(known.email)] });
    expect(answer.status).to.equal(200);
    const expiresAt = Date.parse(h.auth.invitations.at(-1)!.expires_at);
    expect(expiresAt - Date.now()).to.be.within(0, 2_100);
    await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now() + 100));

    const refused = await h.accept(organization.id, known).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(NotFoundError);
    // Expired, it frees its place (the quota is one here): another invitation goes out.
    const another = await h.call("POST", `/organizations/${organization.id}/assign-roles`, { as: owner, body: [invite(fresh("next"))] });
    expect(another.status).to.equal(200);
    // Invited again (while the other has expired too), the late one can accept.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const again = await h.call("POST", `/organizations/${organization.id}/assign-roles`, { as: owner, body: [invite(known.email)] });
    expect(again.status).to.equal(200);
    expect(await h.accept(organization.id, known)).to.equal(true);
  });
});
