import { expect } from "chai";
import { change } from "./support/changes.js";
import { documentFixture, Harness, queueFixture } from "./support/harness.js";

describe("who may read and change documents (membership is an in-process test double)", function () {
  this.timeout(30_000);
  let h: Harness;

  before(async () => {
    h = await Harness.start();
  });
  after(async () => {
    await h?.stop();
  });

  it("answers 404, never 403, for every document endpoint with another organization's ids", async () => {
    const theirs = await queueFixture(h, "theirs");
    const mine = await queueFixture(h, "mine");
    const id = await documentFixture(theirs.owner, theirs.queueId, { extracted: true });
    const intruder = mine.owner;
    const attempts = {
      read: await intruder.get(`/documents/${id}`),
      list: await intruder.get(`/queues/${theirs.queueId}/documents`),
      upload: await intruder.post(`/queues/${theirs.queueId}/documents`, { file_name: "x.pdf" }),
      extraction: await intruder.post(`/documents/${id}/extraction`, { annotations: [], confidence: 1 }),
      patch: await intruder.patch(`/documents/${id}/annotations`, { annotations: [{ key: "iban", value: "x" }] }),
      status: await intruder.post(`/documents/${id}/status`, { status: "deleted" }),
    };
    for (const [what, reply] of Object.entries(attempts)) {
      expect(reply.status, what).to.equal(404);
      expect(reply.body.code, what).to.match(/_not_found$/);
    }
    expect((await theirs.owner.get(`/documents/${id}`)).body.data.status).to.equal("to_validate");
  });

  it("treats a token whose subject is not a user id membership knows as a stranger (404)", async () => {
    const { queueId } = await queueFixture(h, "stranger");
    const stranger = h.as("not-a-uuid");
    expect((await stranger.get(`/queues/${queueId}`)).status).to.equal(404);
    expect((await stranger.get(`/queues/${queueId}/documents`)).status).to.equal(404);
  });

  it("lets a viewer read documents but not upload, edit annotations, record extraction or change status (403)", async () => {
    const { organization, owner, queueId } = await queueFixture(h, "viewer");
    const viewer = h.member(organization.id, "viewer");
    const id = await documentFixture(owner, queueId, { extracted: true });
    expect((await viewer.get(`/documents/${id}`)).status).to.equal(200);
    expect((await viewer.get(`/queues/${queueId}/documents`)).body.data).to.have.length(1);
    const denied = {
      upload: await viewer.post(`/queues/${queueId}/documents`, { file_name: "x.pdf" }),
      patch: await viewer.patch(`/documents/${id}/annotations`, { annotations: [{ key: "iban", value: "x" }] }),
      extraction: await viewer.post(`/documents/${id}/extraction`, { annotations: [], confidence: 1 }),
      status: await viewer.post(`/documents/${id}/status`, { status: "postponed" }),
    };
    for (const [what, reply] of Object.entries(denied)) {
      expect(reply.status, what).to.equal(403);
      expect(reply.body.detail, what).to.contain("viewer");
    }
    expect((await owner.get(`/documents/${id}`)).body.data.annotations.find((a: { key: string }) => a.key === "iban")).to.equal(undefined);
  });

  it("lets an editor edit within their queue_ids and hides the documents of other queues (404)", async () => {
    const { organization, owner, queueId, workspaceId } = await queueFixture(h, "editor");
    const otherQueue = (await owner.post("/queues", { workspace_id: workspaceId, name: "Other" })).body.data.id;
    const editor = h.member(organization.id, "editor", [queueId]);
    const mineId = await documentFixture(owner, queueId, { extracted: true });
    const otherId = await documentFixture(owner, otherQueue, { extracted: true });
    expect((await editor.patch(`/documents/${mineId}/annotations`, { annotations: [{ key: "iban", value: "x" }] })).status).to.equal(200);
    expect((await editor.post(`/documents/${mineId}/status`, { status: "ready_to_export" })).status).to.equal(200);
    expect((await editor.get(`/documents/${otherId}`)).status).to.equal(404);
    expect((await editor.post(`/documents/${otherId}/status`, { status: "postponed" })).status).to.equal(404);
  });

  it("shows an approver only the documents assigned to them, in lists and by id", async () => {
    const { organization, owner, queueId } = await queueFixture(h, "approver");
    const approver = h.member(organization.id, "approver");
    const assigned = await documentFixture(owner, queueId, { extracted: true });
    const unassigned = await documentFixture(owner, queueId, { extracted: true });
    const assignment = await h.grpc.applyDocumentChanges(
      change(assigned, { source: "automation", approvers: [approver.userId], status: "in_approval" }),
    );
    expect(assignment.applied).to.equal(true);

    const list = await approver.get(`/queues/${queueId}/documents`);
    expect(list.body.data.map((document: { id: string }) => document.id)).to.deep.equal([assigned]);
    expect(list.body.pagination.total).to.equal(1);
    expect((await approver.get(`/documents/${assigned}`)).body.data.approvers).to.deep.equal([approver.userId]);
    expect((await approver.get(`/documents/${unassigned}`)).status).to.equal(404);
    expect((await approver.post(`/documents/${unassigned}/status`, { status: "rejected" })).status).to.equal(404);
    expect((await owner.get(`/queues/${queueId}/documents`)).body.data).to.have.length(2);
  });

  it("lets an approver approve or reject an assigned document in approval, and nothing else", async () => {
    const { organization, owner, queueId } = await queueFixture(h, "approve");
    const approver = h.member(organization.id, "approver");
    const [toApprove, toReject] = [
      await documentFixture(owner, queueId, { extracted: true }),
      await documentFixture(owner, queueId, { extracted: true }),
    ];
    for (const id of [toApprove, toReject]) {
      await h.grpc.applyDocumentChanges(change(id, { source: "automation", approvers: [approver.userId], status: "in_approval" }));
    }
    expect((await approver.patch(`/documents/${toApprove}/annotations`, { annotations: [{ key: "iban", value: "x" }] })).status).to.equal(
      403,
    );
    expect((await approver.post(`/documents/${toApprove}/status`, { status: "deleted" })).status).to.equal(403);
    expect((await approver.post(`/documents/${toApprove}/status`, { status: "to_validate" })).status).to.equal(403);

    const approved = await approver.post(`/documents/${toApprove}/status`, { status: "ready_to_export" });
    expect(approved.status).to.equal(200);
    expect(approved.body.data.status).to.equal("ready_to_export");
    expect((await approver.post(`/documents/${toReject}/status`, { status: "rejected" })).body.data.status).to.equal("rejected");
    expect((await approver.post(`/documents/${toApprove}/status`, { status: "exported" })).status).to.equal(403);
  });
});
