import { expect } from "chai";
import { change } from "./support/changes.js";
import { documentFixture, Harness, queueFixture, type UserApi } from "./support/harness.js";

/**
 * API.md: an approver of the current stage approves "once per person", and only the route's decisions (or an owner's
 * or supervisor's override, kept in the audit log) take a document in approval on to ready_to_export.
 */
describe("approval counts once per person, and nobody else skips the route (membership is an in-process test double)", function () {
  this.timeout(30_000);
  let h: Harness;

  before(async () => {
    h = await Harness.start();
  });
  after(async () => {
    await h?.stop();
  });

  /** A document on a route whose stages list these people (stage 1 current), in `status`. */
  async function routed(
    stages: (organizationId: string, queueId: string) => Array<{ people: UserApi[]; min: number }>,
    status = "in_approval",
  ) {
    const fixture = await queueFixture(h, "once");
    const route = stages(fixture.organization.id, fixture.queueId);
    const documentId = await documentFixture(fixture.owner, fixture.queueId, { extracted: true });
    const wire = {
      stages: route.map((stage) => ({ approver_ids: stage.people.map((person) => person.userId), min_approvals: stage.min })),
      stage: 0,
    };
    const applied = await h.grpc.applyDocumentChanges(
      change(documentId, {
        source: "automation",
        approvers: wire.stages[0]!.approver_ids,
        approval_route_json: JSON.stringify(wire),
        status,
      }),
    );
    expect(applied.applied, applied.reason).to.equal(true);
    return { ...fixture, documentId };
  }

  it("two-stage approval with a person in both stages: their approval counts once, and the second stage needs someone else", async () => {
    let both!: UserApi;
    let other!: UserApi;
    const { owner, documentId } = await routed((organizationId, queueId) => {
      both = h.member(organizationId, "approver", [queueId]);
      other = h.member(organizationId, "approver", [queueId]);
      return [
        { people: [both], min: 1 },
        { people: [both, other], min: 1 },
      ];
    });

    const first = await both.post(`/documents/${documentId}/approve`);
    expect(first.status).to.equal(200);
    expect(first.body.data.approval.current_stage).to.equal(2);

    // Listed in stage two as well, they still see the document, but their one decision is spent.
    const again = await both.post(`/documents/${documentId}/approve`);
    expect(again.status).to.equal(409);
    expect(again.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(again.body).to.include({ code: "already_decided", decided_stage: 1 });
    const byStatus = await both.post(`/documents/${documentId}/status`, { status: "ready_to_export" });
    expect(byStatus.status, "the status route is the same decision").to.equal(409);
    const rejecting = await both.post(`/documents/${documentId}/reject`);
    expect(rejecting.status, "a rejection is a decision too").to.equal(409);
    const still = (await owner.get(`/documents/${documentId}`)).body.data;
    expect(still.status).to.equal("in_approval");
    expect(still.approval.current_stage).to.equal(2);
    expect(still.approval.stages[1].approvals).to.deep.equal([]);

    const done = await other.post(`/documents/${documentId}/approve`);
    expect(done.status).to.equal(200);
    expect(done.body.data.status).to.equal("ready_to_export");
    expect(
      done.body.data.approval.stages.map((stage: { approvals: Array<{ user_id: string }> }) => stage.approvals.map((a) => a.user_id)),
    ).to.deep.equal([[both.userId], [other.userId]]);
  });

  it("an editor or admin cannot move a document in approval to ready_to_export (403 approval_required), and nothing changes", async () => {
    let approver!: UserApi;
    const { organization, owner, queueId, documentId } = await routed((organizationId, queue) => {
      approver = h.member(organizationId, "approver", [queue]);
      return [{ people: [approver], min: 1 }];
    });
    const before = (await owner.get(`/documents/${documentId}`)).body.data;
    for (const role of ["editor", "admin"] as const) {
      const member = h.member(organization.id, role, [queueId]);
      const refused = await member.post(`/documents/${documentId}/status`, { status: "ready_to_export" });
      expect(refused.status, role).to.equal(403);
      expect(refused.headers.get("content-type"), role).to.match(/^application\/problem\+json/);
      expect(refused.body.code, role).to.equal("approval_required");
      // Nor around the route: back to validation (allowed, the route restarts), then straight on.
      expect((await member.post(`/documents/${documentId}/status`, { status: "to_validate" })).status, role).to.equal(200);
      const around = await member.post(`/documents/${documentId}/status`, { status: "ready_to_export" });
      expect(around.status, `${role} from to_validate with approvers`).to.equal(403);
      expect(around.body.code).to.equal("approval_required");
      expect((await member.post(`/documents/${documentId}/status`, { status: "in_approval" })).status, role).to.equal(200);
    }
    const after = (await owner.get(`/documents/${documentId}`)).body.data;
    expect(after.status).to.equal("in_approval");
    expect(after.approvers).to.deep.equal(before.approvers);
    expect(after.approval.stages).to.deep.equal(before.approval.stages);

    // The route still decides.
    const approved = await approver.post(`/documents/${documentId}/approve`);
    expect(approved.status).to.equal(200);
    expect(approved.body.data.status).to.equal("ready_to_export");
  });

  it("an editor listed in the current stage moves it on by deciding: one of two required approvals keeps it in approval", async () => {
    let editor!: UserApi;
    let approver!: UserApi;
    const { documentId } = await routed((organizationId, queueId) => {
      editor = h.member(organizationId, "editor", [queueId]);
      approver = h.member(organizationId, "approver", [queueId]);
      return [{ people: [editor, approver], min: 2 }];
    });
    const moved = await editor.post(`/documents/${documentId}/status`, { status: "ready_to_export" });
    expect(moved.status).to.equal(200);
    expect(moved.body.data.status).to.equal("in_approval");
    expect(moved.body.data.approval.stages[0].approvals.map((a: { user_id: string }) => a.user_id)).to.deep.equal([editor.userId]);
    const again = await editor.post(`/documents/${documentId}/status`, { status: "ready_to_export" });
    expect(again.status).to.equal(403);
    expect(again.body.code).to.equal("approval_required");
    expect((await approver.post(`/documents/${documentId}/approve`)).body.data.status).to.equal("ready_to_export");
  });

  it("an owner's or supervisor's move past the route is an override, published as their status change (the audit log's entry)", async () => {
    for (const role of ["owner", "supervisor"] as const) {
      const { organization, owner, queueId, documentId } = await routed((organizationId, queueId) => [
        { people: [h.member(organizationId, "approver", [queueId])], min: 1 },
      ]);
      const who = role === "owner" ? owner : h.member(organization.id, "supervisor");
      const moved = await who.post(`/documents/${documentId}/status`, { status: "ready_to_export" });
      expect(moved.status, role).to.equal(200);
      expect(moved.body.data.status, role).to.equal("ready_to_export");
      const published = await h.events.waitFor(
        (recorded) =>
          recorded.event.type === "document.status_changed" &&
          (recorded.event.data as { document_id: string; status: string }).document_id === documentId &&
          (recorded.event.data as { status: string }).status === "ready_to_export",
      );
      expect(published.event.actor_user_id, role).to.equal(who.userId);
      expect(published.event.data, role).to.deep.include({ previous_status: "in_approval", user_id: who.userId });
      void queueId;
    }
  });

  it("a document in validation without approvers still moves to ready_to_export for an editor", async () => {
    const { organization, owner, queueId } = await queueFixture(h, "no-route");
    const editor = h.member(organization.id, "editor", [queueId]);
    const documentId = await documentFixture(owner, queueId, { extracted: true });
    expect((await editor.post(`/documents/${documentId}/status`, { status: "ready_to_export" })).status).to.equal(200);
  });
});
