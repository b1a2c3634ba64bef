import { expect } from "chai";
import { change } from "./support/changes.js";
import { expectGrpcError } from "./support/grpc-errors.js";
import { documentFixture, Harness, queueFixture, type UserApi } from "./support/harness.js";

describe("approval stages: a document follows its route stage by stage (membership is an in-process test double)", function () {
  this.timeout(30_000);
  let h: Harness;

  before(async () => {
    h = await Harness.start();
  });
  after(async () => {
    await h?.stop();
  });

  /** An organization with a queue, approvers of two stages, and a document in approval on that route. */
  async function routed(stages: Array<{ approvers: number; min_approvals: number }>, options: { status?: string } = {}) {
    const { organization, owner, queueId } = await queueFixture(h, "route");
    const people: UserApi[][] = stages.map((stage) =>
      Array.from({ length: stage.approvers }, () => h.member(organization.id, "approver", [queueId])),
    );
    const documentId = await documentFixture(owner, queueId, { extracted: true });
    const route = {
      stages: stages.map((stage, index) => ({
        approver_ids: people[index]!.map((person) => person.userId),
        min_approvals: stage.min_approvals,
      })),
      stage: 0,
    };
    const applied = await h.grpc.applyDocumentChanges(
      change(documentId, {
        source: "automation",
        approvers: route.stages[0]!.approver_ids,
        approval_route_json: JSON.stringify(route),
        status: options.status ?? "in_approval",
      }),
    );
    expect(applied.applied, applied.reason).to.equal(true);
    return { organization, owner, queueId, documentId, people };
  }

  it("completes a stage at min_approvals, assigns the next stage, and ends in ready_to_export after the last", async () => {
    const { owner, documentId, people } = await routed([
      { approvers: 3, min_approvals: 2 },
      { approvers: 1, min_approvals: 1 },
    ]);
    const [first, second, third] = people[0]!;
    const [final] = people[1]!;

    const shown = await owner.get(`/documents/${documentId}`);
    expect(shown.body.data.approvers).to.have.members(people[0]!.map((person) => person.userId));
    expect(shown.body.data.approval).to.deep.include({ current_stage: 1, rejection: null });
    expect(shown.body.data.approval.stages.map((stage: { min_approvals: number }) => stage.min_approvals)).to.deep.equal([2, 1]);

    // The approver of stage two neither sees nor acts on the document during stage one.
    expect((await final!.get(`/documents/${documentId}`)).status).to.equal(404);
    expect((await final!.post(`/documents/${documentId}/approve`)).status).to.equal(404);

    const once = await first!.post(`/documents/${documentId}/approve`);
    expect(once.status).to.equal(200);
    expect(once.body.data.status).to.equal("in_approval");
    expect(once.body.data.approval.current_stage).to.equal(1);
    expect(once.body.data.approval.stages[0].approvals.map((approval: { user_id: string }) => approval.user_id)).to.deep.equal([
      first!.userId,
    ]);
    const twice = await first!.post(`/documents/${documentId}/approve`);
    expect(twice.status).to.equal(409);
    expect(twice.body.code).to.equal("already_decided");

    const completing = await second!.post(`/documents/${documentId}/approve`);
    expect(completing.status).to.equal(200);
    expect(completing.body.data).to.deep.include({ status: "in_approval", approvers: [final!.userId] });
    expect(completing.body.data.approval.current_stage).to.equal(2);
    expect(completing.body.data.approval.stages[0].completed).to.equal(true);
    // Stage one is over: its third approver has nothing left to decide (and no longer sees the document).
    expect((await third!.post(`/documents/${documentId}/approve`)).status).to.equal(404);

    const last = await final!.post(`/documents/${documentId}/approve`);
    expect(last.status).to.equal(200);
    expect(last.body.data.status).to.equal("ready_to_export");
    const approvals = last.body.data.approval.stages.map((stage: { approvals: unknown[] }) => stage.approvals.length);
    expect(approvals).to.deep.equal([2, 1]);

    const events = await h.events.settle(
      (recorded) =>
        recorded.event.type === "document.approved" && (recorded.event.data as { document_id: string }).document_id === documentId,
      3,
    );
    expect(events.map((recorded) => recorded.event.data)).to.deep.equal([
      {
        ...eventBase(documentId, once.body.data),
        user_id: first!.userId,
        stage: 1,
        stages: 2,
        approvals: 1,
        min_approvals: 2,
        stage_completed: false,
      },
      {
        ...eventBase(documentId, once.body.data),
        user_id: second!.userId,
        stage: 1,
        stages: 2,
        approvals: 2,
        min_approvals: 2,
        stage_completed: true,
      },
      {
        ...eventBase(documentId, once.body.data),
        user_id: final!.userId,
        stage: 2,
        stages: 2,
        approvals: 1,
        min_approvals: 1,
        stage_completed: true,
      },
    ]);
    const moved = await h.events.waitFor(
      (recorded) =>
        recorded.event.type === "document.status_changed" &&
        (recorded.event.data as { document_id: string; status: string }).document_id === documentId &&
        (recorded.event.data as { status: string }).status === "ready_to_export",
    );
    expect(moved.event.actor_user_id).to.equal(final!.userId);
  });

  it("ends in rejected at the first rejection, after which nobody decides", async () => {
    const { documentId, people } = await routed([{ approvers: 2, min_approvals: 2 }]);
    const [first, second] = people[0]!;
    expect((await first!.post(`/documents/${documentId}/approve`)).status).to.equal(200);
    const rejected = await second!.post(`/documents/${documentId}/reject`);
    expect(rejected.status).to.equal(200);
    expect(rejected.body.data.status).to.equal("rejected");
    expect(rejected.body.data.approval.rejection).to.include({ user_id: second!.userId, stage: 1 });
    const late = await first!.post(`/documents/${documentId}/reject`);
    expect(late.status).to.equal(409);
    expect(late.body.code).to.equal("not_in_approval");
  });

  it("an approver's status move is their decision: one of two required approvals keeps the document in approval", async () => {
    const { documentId, people } = await routed([{ approvers: 2, min_approvals: 2 }]);
    const moved = await people[0]![0]!.post(`/documents/${documentId}/status`, { status: "ready_to_export" });
    expect(moved.status).to.equal(200);
    expect(moved.body.data.status).to.equal("in_approval");
    expect(moved.body.data.approval.stages[0].approvals).to.have.length(1);
  });

  it("refuses who is not an approver of the stage (403) and a document not in approval (409), changing nothing", async () => {
    const { organization, owner, queueId, documentId } = await routed([{ approvers: 1, min_approvals: 1 }]);
    const editor = h.member(organization.id, "editor", [queueId]);
    const viewer = h.member(organization.id, "viewer", [queueId]);
    const before = (await owner.get(`/documents/${documentId}`)).body.data;
    for (const [who, status] of [
      [owner, 403],
      [editor, 403],
      [viewer, 403],
    ] as const) {
      const answer = await who.post(`/documents/${documentId}/approve`);
      expect(answer.status).to.equal(status);
      expect(answer.headers.get("content-type")).to.match(/^application\/problem\+json/);
    }
    expect((await owner.post(`/documents/${documentId}/approve`)).body.code).to.equal("not_an_approver");
    expect((await h.organization("other").owner.post(`/documents/${documentId}/approve`)).status).to.equal(404);
    expect((await owner.get(`/documents/${documentId}`)).body.data).to.deep.equal(before);

    const waiting = await documentFixture(owner, queueId, { extracted: true });
    const notInApproval = await owner.post(`/documents/${waiting}/approve`);
    expect(notInApproval.status).to.equal(409);
    expect(notInApproval.body.code).to.equal("not_in_approval");
  });

  it("an error message blocks the last approval (409) and keeps the stage open", async () => {
    const { documentId, people } = await routed([{ approvers: 1, min_approvals: 1 }]);
    await h.grpc.applyDocumentChanges(
      change(documentId, { messages_json: JSON.stringify([{ key: null, message: "Supplier is blocked", severity: "error" }]) }),
    );
    const blocked = await people[0]![0]!.post(`/documents/${documentId}/approve`);
    expect(blocked.status).to.equal(409);
    expect(blocked.body.code).to.equal("blocked_by_error_messages");
    const after = await people[0]![0]!.get(`/documents/${documentId}`);
    expect(after.body.data.status).to.equal("in_approval");
    expect(after.body.data.approval.stages[0].approvals).to.deep.equal([]);
  });

  it("sending the document back to validation restarts its route from the first stage", async () => {
    const { owner, documentId, people } = await routed([
      { approvers: 1, min_approvals: 1 },
      { approvers: 1, min_approvals: 1 },
    ]);
    expect((await people[0]![0]!.post(`/documents/${documentId}/approve`)).body.data.approval.current_stage).to.equal(2);
    const back = await owner.post(`/documents/${documentId}/status`, { status: "to_validate" });
    expect(back.body.data.approval.current_stage).to.equal(1);
    expect(back.body.data.approvers).to.deep.equal([people[0]![0]!.userId]);
    await owner.post(`/documents/${documentId}/status`, { status: "in_approval" });
    expect((await people[0]![0]!.post(`/documents/${documentId}/approve`)).status).to.equal(200);
  });

  it("approvers assigned later without a route replace the route: one approval of theirs completes it", async () => {
    const { organization, queueId, documentId } = await routed([{ approvers: 2, min_approvals: 2 }]);
    const newcomer = h.member(organization.id, "approver", [queueId]);
    const replaced = await h.grpc.applyDocumentChanges(change(documentId, { source: "automation", approvers: [newcomer.userId] }));
    expect(replaced.applied).to.equal(true);
    const approved = await newcomer.post(`/documents/${documentId}/approve`);
    expect(approved.status).to.equal(200);
    expect(approved.body.data.status).to.equal("ready_to_export");
    expect(approved.body.data.approval.stages).to.have.length(1);
  });

  it("refuses a malformed route from a service (INVALID_ARGUMENT) without changing the document", async () => {
    const { owner, queueId } = await queueFixture(h, "bad-route");
    const documentId = await documentFixture(owner, queueId, { extracted: true });
    for (const route of [
      { stages: [], stage: 0 },
      { stages: [{ approver_ids: [owner.userId], min_approvals: 2 }], stage: 0 },
      { stages: [{ approver_ids: [owner.userId] }], stage: 1 },
    ]) {
      await expectGrpcError(
        h.grpc.applyDocumentChanges(change(documentId, { source: "automation", approval_route_json: JSON.stringify(route) })),
        "INVALID_ARGUMENT",
      );
    }
    expect((await owner.get(`/documents/${documentId}`)).body.data.approval).to.equal(null);
  });
});

function eventBase(documentId: string, document: { queue_id: string; workspace_id: string }) {
  return { document_id: documentId, queue_id: document.queue_id, workspace_id: document.workspace_id };
}
