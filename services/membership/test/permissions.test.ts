import { randomUUID } from "node:crypto";
import type { Role } from "@docex/events";
import { NotFoundError, ValidationError } from "@docex/kit/errors";
import { expect } from "chai";
import { MembershipHarness, type Person } from "./support/harness.js";

/**
 * API.md "Roles", as CheckPermission answers it. "queues": allowed within the member's queue_ids (all
 * queues when queue_ids is null). An approver's read/approve covers the documents assigned to them,
 * which the document service narrows; membership answers for the queue.
 */
type Cell = "yes" | "queues" | "no";
const TABLE: Record<string, Record<Role, Cell>> = {
  "document.read": { owner: "yes", supervisor: "yes", admin: "queues", editor: "queues", approver: "queues", viewer: "queues" },
  "document.edit": { owner: "yes", supervisor: "yes", admin: "queues", editor: "queues", approver: "no", viewer: "no" },
  "document.approve": { owner: "yes", supervisor: "yes", admin: "queues", editor: "queues", approver: "queues", viewer: "no" },
  "workspace.create": { owner: "yes", supervisor: "yes", admin: "no", editor: "no", approver: "no", viewer: "no" },
  "queue.manage": { owner: "yes", supervisor: "yes", admin: "queues", editor: "no", approver: "no", viewer: "no" },
  "signing_key.manage": { owner: "yes", supervisor: "yes", admin: "no", editor: "no", approver: "no", viewer: "no" },
  "user.manage": { owner: "yes", supervisor: "yes", admin: "yes", editor: "no", approver: "no", viewer: "no" },
};

const ROLES: Role[] = ["owner", "supervisor", "admin", "editor", "approver", "viewer"];
const SCOPED: Role[] = ["admin", "editor", "approver", "viewer"];

describe("CheckPermission and GetRoles over gRPC: every cell of the roles table", () => {
  let h: MembershipHarness;
  let organizationId: string;
  const QUEUE = randomUUID();
  const OTHER_QUEUE = randomUUID();
  /** A member of each role with every queue, and one of each queue-scoped role limited to QUEUE. */
  const everywhere = new Map<Role, Person>();
  const limited = new Map<Role, Person>();

  before(async () => {
    // Every read of the member list asks auth again, so a deactivation shows at once.
    h = await MembershipHarness.start({ profiles: { maxAgeMs: 0 } });
    const roles: Role[] = ["owner", "supervisor", "admin", "editor", "approver", "viewer", ...SCOPED];
    const queueIds: Record<number, string[]> = {};
    SCOPED.forEach((_, i) => {
      queueIds[6 + i] = [QUEUE];
    });
    const team = await h.team(roles, queueIds);
    organizationId = team.organization.id;
    roles.forEach((role, i) => {
      (i < 6 ? everywhere : limited).set(role, team.members[i]!);
    });
  });

  after(async () => {
    await h?.stop();
  });

  const check = async (person: Person, permission: string, queueId?: string) =>
    h.grpc.checkPermission({ user_id: person.id, organization_id: organizationId, permission, ...(queueId ? { queue_id: queueId } : {}) });

  for (const [permission, row] of Object.entries(TABLE)) {
    it(`${permission}: ${ROLES.map((role) => `${role} ${row[role]}`).join(", ")}`, async () => {
      for (const role of ROLES) {
        const cell = row[role];
        const person = everywhere.get(role)!;
        const whole = await check(person, permission);
        expect(whole, `${role} in the organization`).to.deep.equal({ allowed: cell !== "no", is_member: true, role });
        expect((await check(person, permission, QUEUE)).allowed, `${role} (every queue) in a queue`).to.equal(cell !== "no");

        if (!SCOPED.includes(role)) continue;
        const scoped = limited.get(role)!;
        expect((await check(scoped, permission, QUEUE)).allowed, `${role} limited to the queue, in it`).to.equal(cell !== "no");
        expect((await check(scoped, permission, OTHER_QUEUE)).allowed, `${role} limited to the queue, in another`).to.equal(cell === "yes");
        // Creating a queue has no queue yet: an admin limited to some queues may not, everyone else as the row says.
        const organizationWide = permission === "queue.manage" ? false : cell !== "no";
        expect((await check(scoped, permission)).allowed, `${role} limited to the queue, organization-wide`).to.equal(organizationWide);
      }
    });
  }

  it("answers is_member false and allowed false for a user without a membership, so callers answer 404", async () => {
    const stranger = h.person("stranger");
    expect(await check(stranger, "document.read")).to.deep.equal({ allowed: false, is_member: false, role: "" });
    expect(await h.grpc.getRoles({ user_id: stranger.id, organization_id: organizationId })).to.deep.equal({
      role: "",
      queue_ids: [],
      all_queues: false,
      status: "",
    });
    expect(await h.grpc.getRoles({ user_id: stranger.id, organization_id: randomUUID() })).to.include({ role: "" });
  });

  it("GetRoles answers the role, the queues and the status of a membership", async () => {
    expect(await h.grpc.getRoles({ user_id: everywhere.get("owner")!.id, organization_id: organizationId })).to.deep.equal({
      role: "owner",
      queue_ids: [],
      all_queues: true,
      status: "active",
    });
    expect(await h.grpc.getRoles({ user_id: limited.get("editor")!.id, organization_id: organizationId })).to.deep.equal({
      role: "editor",
      queue_ids: [QUEUE],
      all_queues: false,
      status: "active",
    });
  });

  it("treats a member whose account auth deactivated as no member: CheckPermission is_member false, GetRoles status deactivated", async () => {
    const team = await h.team(["editor"]);
    const editor = team.members[0]!;
    h.auth.setStatus(editor.id, "deactivated");
    // The copy of auth's data is refreshed when the member list is read.
    const members = await h.memberships(team.organization.id, team.owner);
    expect(members.find((member) => member.user_id === editor.id)).to.include({ status: "deactivated" });
    const answer = await h.grpc.checkPermission({ user_id: editor.id, organization_id: team.organization.id, permission: "document.read" });
    expect(answer).to.deep.equal({ allowed: false, is_member: false, role: "" });
    expect(await h.grpc.getRoles({ user_id: editor.id, organization_id: team.organization.id })).to.include({
      role: "editor",
      status: "deactivated",
    });
    const own = await h.call("GET", `/organizations/${team.organization.id}`, { as: editor });
    expect(own.status).to.equal(404);
  });

  it("answers INVALID_ARGUMENT for a permission that is not in the table and for ids that are not UUIDs", async () => {
    const owner = everywhere.get("owner")!;
    const unknown = await check(owner, "document.delete").catch((error: unknown) => error);
    expect(unknown).to.be.instanceOf(ValidationError);
    expect((unknown as Error).message).to.match(/Unknown permission "document\.delete"/);
    const humanized = await h.grpc
      .checkPermission({ user_id: owner.id, organization_id: "acme", permission: "document.read" })
      .catch((error: unknown) => error);
    expect(humanized).to.be.instanceOf(ValidationError);
    const badRoles = await h.grpc.getRoles({ user_id: "someone", organization_id: organizationId }).catch((error: unknown) => error);
    expect(badRoles).to.be.instanceOf(ValidationError);
    expect(badRoles).not.to.be.instanceOf(NotFoundError);
  });
});
