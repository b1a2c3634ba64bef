import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { MembershipHarness, type Person } from "./support/harness.js";

describe("manage-user-schema over HTTP, and GetUserSchema over gRPC for the document service", () => {
  let h: MembershipHarness;
  let organizationId: string;
  let owner: Person;
  let admin: Person;
  let editor: Person;
  let viewer: Person;
  const QUEUE = randomUUID();

  before(async () => {
    h = await MembershipHarness.start();
    const team = await h.team(["admin", "editor", "viewer"]);
    organizationId = team.organization.id;
    owner = team.owner;
    [admin, editor, viewer] = team.members as [Person, Person, Person];
    h.queues.add(QUEUE, organizationId);
  });

  after(async () => {
    await h?.stop();
  });

  const manage = (as: Person, body: unknown) => h.call("POST", `/organizations/${organizationId}/manage-user-schema`, { as, body });
  const effective = (userId: string, queueId = "") =>
    h.grpc.getUserSchema({ user_id: userId, organization_id: organizationId, queue_id: queueId });

  it("stores the organization-wide and a queue's schema; GetUserSchema lays the queue's over the organization's", async () => {
    const organizationWide = await manage(owner, {
      user_id: editor.id,
      fields: [{ key: "iban", hidden: true }, { key: "total_due", readonly: true }, { key: "due_date" }],
    });
    expect(organizationWide.status).to.equal(200);
    expect(organizationWide.body).to.deep.equal({
      data: {
        user_id: editor.id,
        queue_id: null,
        fields: [
          { key: "iban", hidden: true, readonly: false },
          { key: "total_due", hidden: false, readonly: true },
          { key: "due_date", hidden: false, readonly: false },
        ],
      },
    });
    const perQueue = await manage(admin, {
      user_id: editor.id,
      queue_id: QUEUE,
      fields: [
        { key: "iban", hidden: false },
        { key: "invoice_id", readonly: true },
      ],
    });
    expect(perQueue.status).to.equal(200);
    expect(perQueue.body.data).to.include({ queue_id: QUEUE });

    expect((await effective(editor.id)).fields).to.deep.equal([
      { key: "iban", hidden: true, readonly: false },
      { key: "total_due", hidden: false, readonly: true },
    ]);
    expect((await effective(editor.id, QUEUE)).fields).to.deep.equal([
      { key: "total_due", hidden: false, readonly: true },
      { key: "invoice_id", hidden: false, readonly: true },
    ]);
    expect((await effective(editor.id, randomUUID())).fields).to.have.length(2);

    const cleared = await manage(owner, { user_id: editor.id, queue_id: QUEUE, fields: [] });
    expect(cleared.status).to.equal(200);
    expect((await effective(editor.id, QUEUE)).fields.map((field) => field.key)).to.deep.equal(["iban", "total_due"]);
  });

  it("follows the manage-users rule: not for oneself, not for roles the caller does not manage, not for a viewer caller", async () => {
    const body = (userId: string) => ({ user_id: userId, fields: [{ key: "iban", hidden: true }] });
    expect((await manage(admin, body(admin.id))).status).to.equal(403);
    expect((await manage(admin, body(owner.id))).status).to.equal(403);
    expect((await manage(viewer, body(editor.id))).status).to.equal(403);
    expect((await manage(editor, body(viewer.id))).status).to.equal(403);
    expect((await manage(admin, body(viewer.id))).status).to.equal(200);
  });

  it("answers 400 for a user who is not a member, repeated keys or a bad queue id, and GetUserSchema is empty for strangers", async () => {
    const stranger = randomUUID();
    const notMember = await manage(owner, { user_id: stranger, fields: [] });
    expect(notMember.status).to.equal(400);
    expect(notMember.body.errors).to.deep.equal([{ path: "user_id", message: "This user is not a member of the organization." }]);
    const repeated = await manage(owner, { user_id: editor.id, queue_id: "acme", fields: [{ key: "iban" }, { key: "iban" }] });
    expect(repeated.status).to.equal(400);
    expect(repeated.body.errors.map((error: { path: string }) => error.path)).to.have.members(["queue_id", "fields.1.key"]);
    expect((await effective(stranger)).fields).to.deep.equal([]);
  });

  it("answers 404 for a queue that does not exist or is another organization's, and stores nothing", async () => {
    const elsewhere = h.queues.add(randomUUID(), randomUUID());
    for (const queueId of [randomUUID(), elsewhere]) {
      const answer = await manage(owner, { user_id: editor.id, queue_id: queueId, fields: [{ key: "vendor_name", readonly: true }] });
      expect(answer.status).to.equal(404);
      expect(answer.body.code).to.equal("queue_not_found");
      expect((await effective(editor.id, queueId)).fields).to.deep.equal((await effective(editor.id)).fields);
    }
  });
});
