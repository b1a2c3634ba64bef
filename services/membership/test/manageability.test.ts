import { randomUUID } from "node:crypto";
import type { Role } from "@docex/events";
import { expect } from "chai";
import { MembershipHarness, type Person } from "./support/harness.js";

const ROLES: Role[] = ["owner", "supervisor", "admin", "editor", "approver", "viewer"];

/** API.md "manage users": owner everyone but self; supervisor admin, editor, approver, viewer; admin editor, viewer. */
const MANAGES: Record<Role, Role[]> = {
  owner: ROLES,
  supervisor: ["admin", "editor", "approver", "viewer"],
  admin: ["editor", "viewer"],
  editor: [],
  approver: [],
  viewer: [],
};

describe("raw-memberships: is_manageable for every pair of roles, and assign-roles agrees with it", () => {
  let h: MembershipHarness;
  let organizationId: string;
  /** Two members of each role, so that every role meets another member of its own role. */
  const people = new Map<Role, [Person, Person]>();

  before(async () => {
    h = await MembershipHarness.start();
    // The creator is the first owner; everyone else is invited by them.
    const invited: Role[] = [...ROLES, ...ROLES.slice(1)];
    const team = await h.team(invited);
    organizationId = team.organization.id;
    const everyone: Array<[Role, Person]> = [["owner", team.owner], ...invited.map((role, i): [Role, Person] => [role, team.members[i]!])];
    for (const role of ROLES) people.set(role, everyone.filter(([r]) => r === role).map(([, person]) => person) as [Person, Person]);
  });

  after(async () => {
    await h?.stop();
  });

  for (const callerRole of ROLES) {
    it(`${/^[aeiou]/.test(callerRole) ? "an" : "a"} ${callerRole} may manage ${MANAGES[callerRole].join(", ") || "nobody"}, never themselves`, async () => {
      const [caller, peer] = people.get(callerRole)!;
      const members = await h.memberships(organizationId, caller);
      expect(members).to.have.length(12);
      for (const member of members) {
        const expected = member.user_id !== caller.id && MANAGES[callerRole].includes(member.role as Role);
        expect(member.is_manageable, `${callerRole} → ${member.role}${member.user_id === caller.id ? " (self)" : ""}`).to.equal(expected);
      }
      // The same answer from assign-roles: setting a member's role to what it is changes nothing, or is refused.
      for (const targetRole of ROLES) {
        const target = targetRole === callerRole ? peer : people.get(targetRole)![0];
        const answer = await h.call("POST", `/organizations/${organizationId}/assign-roles`, {
          as: caller,
          body: [{ operation: "set_role", user_id: target.id, role: targetRole }],
        });
        const expected = MANAGES[callerRole].includes(targetRole) ? 200 : 403;
        expect(answer.status, `${callerRole} sets the role of a ${targetRole}`).to.equal(expected);
      }
      const self = await h.call("POST", `/organizations/${organizationId}/assign-roles`, {
        as: caller,
        body: [{ operation: "set_role", user_id: caller.id, role: callerRole }],
      });
      expect(self.status, `${callerRole} changes themselves`).to.equal(403);
      expect(self.body.errors).to.deep.equal([
        { path: "0", message: "Nobody changes their own membership; ask another member who manages users." },
      ]);
    });
  }

  it("an admin limited to some queues manages only members within those queues, and sees only members sharing a queue", async () => {
    const queue = randomUUID();
    const otherQueue = randomUUID();
    const team = await h.team(["admin", "editor", "editor", "viewer", "viewer"], {
      0: [queue],
      1: [queue],
      3: [otherQueue],
    });
    const [admin, editorInQueue, editorEverywhere, viewerElsewhere, viewerEverywhere] = team.members as [
      Person,
      Person,
      Person,
      Person,
      Person,
    ];
    const members = await h.memberships(team.organization.id, admin);
    const manageable = Object.fromEntries(members.map((member) => [member.user_id, member.is_manageable]));
    expect(manageable).to.deep.equal({
      [team.owner.id]: false,
      [admin.id]: false,
      [editorInQueue.id]: true,
      [editorEverywhere.id]: false,
      [viewerEverywhere.id]: false,
    });
    expect(Object.keys(manageable)).not.to.include(viewerElsewhere.id);

    const outside = await h.call("POST", `/organizations/${team.organization.id}/assign-roles`, {
      as: admin,
      body: [
        { operation: "set_role", user_id: editorInQueue.id, role: "viewer", queue_ids: [queue] },
        { operation: "set_role", user_id: viewerEverywhere.id, role: "viewer", queue_ids: [queue] },
        { operation: "invite", email: h.person("new").email, role: "editor", queue_ids: [otherQueue] },
        { operation: "invite", email: h.person("new").email, role: "editor" },
      ],
    });
    expect(outside.status).to.equal(403);
    expect(outside.body.errors.map((error: { path: string }) => error.path)).to.deep.equal(["1.user_id", "2.role", "3.role"]);

    const inside = await h.call("POST", `/organizations/${team.organization.id}/assign-roles`, {
      as: admin,
      body: [
        { operation: "set_role", user_id: editorInQueue.id, role: "viewer" },
        { operation: "invite", email: h.person("new").email, role: "editor", queue_ids: [queue] },
      ],
    });
    expect(inside.status).to.equal(200);
  });
});
