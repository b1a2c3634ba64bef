import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { MembershipHarness } from "./support/harness.js";

describe("tenancy: another organization's ids answer 404 on every endpoint, never 403", () => {
  let h: MembershipHarness;

  before(async () => {
    h = await MembershipHarness.start();
  });

  after(async () => {
    await h?.stop();
  });

  it("a member of organization A gets 404 for organization B by UUID and by humanized id, whatever the body, and B is unchanged", async () => {
    const a = await h.team(["viewer"]);
    const b = await h.team(["editor"]);
    const bEditor = b.members[0]!;
    const before = await h.memberships(b.organization.id, b.owner);

    const requests: Array<[string, string, unknown]> = [
      ["GET", "", undefined],
      ["GET", "/raw-memberships", undefined],
      ["POST", "/assign-roles", [{ operation: "remove", user_id: bEditor.id }]],
      ["POST", "/assign-roles", { not: "an array" }],
      ["POST", "/manage-user-schema", { user_id: bEditor.id, fields: [{ key: "iban", hidden: true }] }],
    ];
    for (const caller of [a.owner, a.members[0]!]) {
      for (const ref of [b.organization.id, b.organization.humanized_id]) {
        for (const [method, suffix, body] of requests) {
          const answer = await h.call(method, `/organizations/${ref}${suffix}`, { as: caller, body });
          expect(answer.status, `${method} ${suffix || "/"} by ${ref}`).to.equal(404);
          expect(answer.body).to.include({ code: "organization_not_found" });
        }
      }
    }
    for (const ref of [randomUUID(), "no-such-organization"]) {
      expect((await h.call("GET", `/organizations/${ref}`, { as: a.owner })).status).to.equal(404);
    }
    const listed = await h.call("GET", "/organizations", { as: a.owner });
    expect(listed.body.data.map((o: { id: string }) => o.id)).to.deep.equal([a.organization.id]);
    expect(await h.memberships(b.organization.id, b.owner)).to.deep.equal(before);
  });

  it("a member of B named in A's assign-roles is just not a member of A (400), and nothing of B changes", async () => {
    const a = await h.team([]);
    const b = await h.team(["editor"]);
    const answer = await h.call("POST", `/organizations/${a.organization.id}/assign-roles`, {
      as: a.owner,
      body: [{ operation: "set_role", user_id: b.members[0]!.id, role: "viewer" }],
    });
    expect(answer.status).to.equal(400);
    expect(answer.body.errors).to.deep.equal([{ path: "0.user_id", message: "This user is not a member of the organization." }]);
    expect(await h.grpc.getRoles({ user_id: b.members[0]!.id, organization_id: b.organization.id })).to.include({ role: "editor" });
  });
});
