import { randomBytes, randomUUID } from "node:crypto";
import { eventually, freePort, TestIssuer, UserDirectoryStub } from "@docex/testkit";
import { expect } from "chai";
import { change } from "./support/changes.js";
import { Harness, type MembershipBackend, UserApi } from "./support/harness.js";
import { startRealMembership } from "./support/real-membership.js";

describe("with the real membership service in-process: roles, queue limits, user schemas and role changes decided by membership", function () {
  this.timeout(60_000);
  const directory = new UserDirectoryStub();
  let h: Harness<MembershipBackend>;
  let membershipUrl: string;
  let acceptInvitation: (organizationId: string, userId: string, email: string) => Promise<void>;
  let owner: UserApi;
  let organization: { id: string; humanized_id: string };
  let queueId: string;
  let otherQueueId: string;

  const membershipApi = (userId: string) => new UserApi(membershipUrl, h.issuer, userId);
  const documentApi = (userId: string) => h.as(userId);
  const invite = async (email: string, role: string, queueIds?: string[]) => {
    const reply = await membershipApi(owner.userId).post(`/organizations/${organization.id}/assign-roles`, [
      { operation: "invite", email, role, ...(queueIds ? { queue_ids: queueIds } : {}) },
    ]);
    if (reply.status !== 200) throw new Error(`assign-roles: ${reply.status} ${JSON.stringify(reply.body)}`);
    await acceptInvitation(organization.id, directory.idOf(email), email);
    return documentApi(directory.idOf(email));
  };

  before(async () => {
    const issuer = await TestIssuer.start();
    // The document service's gRPC port is chosen first: membership asks it whether a user schema's queue exists.
    const documentGrpcPort = await freePort();
    const membership = await startRealMembership(issuer, directory, `127.0.0.1:${documentGrpcPort}`);
    membershipUrl = membership.url;
    acceptInvitation = membership.accept;
    const backend: MembershipBackend = membership;
    // Permissions cached as in production: only membership.changed makes a role change visible before the TTL.
    h = await Harness.start({ membership: backend, issuer, permissionCacheMs: 30_000, env: { GRPC_PORT: documentGrpcPort } });
    owner = h.as(randomUUID());
  });
  after(async () => {
    await h?.stop();
  });

  it("creates the hierarchy in an organization created through membership, which ResolveEntity then knows by humanized id", async () => {
    const created = await membershipApi(owner.userId).post("/organizations", { name: `Acme ${randomBytes(3).toString("hex")}` });
    expect(created.status).to.equal(201);
    organization = created.body.data;
    const workspace = await owner.post("/workspaces", { organization_id: organization.humanized_id, name: "Payables" });
    expect(workspace.status).to.equal(201);
    expect(workspace.body.data.organization_id).to.equal(organization.id);
    queueId = (await owner.post("/queues", { workspace_id: workspace.body.data.humanized_id, name: "Invoices" })).body.data.id;
    otherQueueId = (await owner.post("/queues", { workspace_id: workspace.body.data.id, name: "Receipts" })).body.data.id;
    const resolved = await eventually(() =>
      h.grpc.resolveEntity({ entity_type: "organization", id_or_humanized: organization.humanized_id }).catch(() => undefined),
    );
    expect(resolved.id).to.equal(organization.id);
  });

  it("lets an invited viewer read but not edit, and keeps an editor to their queue_ids", async () => {
    const documentId = (await owner.post(`/queues/${queueId}/documents`, { file_name: "a.pdf" })).body.data.id;
    const otherDocumentId = (await owner.post(`/queues/${otherQueueId}/documents`, { file_name: "b.pdf" })).body.data.id;
    const viewer = await invite("viewer@example.test", "viewer");
    const editor = await invite("editor@example.test", "editor", [queueId]);

    expect((await viewer.get(`/documents/${documentId}`)).status).to.equal(200);
    expect((await viewer.patch(`/documents/${documentId}/annotations`, { annotations: [{ key: "iban", value: "x" }] })).status).to.equal(
      403,
    );
    expect((await viewer.post("/workspaces", { organization_id: organization.id, name: "No" })).status).to.equal(403);
    expect((await editor.patch(`/documents/${documentId}/annotations`, { annotations: [{ key: "iban", value: "x" }] })).status).to.equal(
      200,
    );
    expect((await editor.get(`/documents/${otherDocumentId}`)).status).to.equal(404);

    const outsider = documentApi(randomUUID());
    expect((await outsider.get(`/documents/${documentId}`)).status).to.equal(404);
    expect((await outsider.get(`/queues/${queueId}`)).status).to.equal(404);
    expect((await outsider.post("/workspaces", { organization_id: organization.id, name: "No" })).status).to.equal(404);
  });

  it("shows an approver only the documents assigned to them", async () => {
    const approver = await invite("approver@example.test", "approver");
    const assigned = (await owner.post(`/queues/${queueId}/documents`, { file_name: "assigned.pdf" })).body.data.id;
    await owner.post(`/documents/${assigned}/extraction`, { annotations: [], confidence: 90 });
    expect(
      (await h.grpc.applyDocumentChanges(change(assigned, { source: "automation", approvers: [approver.userId], status: "in_approval" })))
        .applied,
    ).to.equal(true);
    const listed = await approver.get(`/queues/${queueId}/documents`);
    expect(listed.body.data.map((document: { id: string }) => document.id)).to.deep.equal([assigned]);
    expect((await approver.post(`/documents/${assigned}/status`, { status: "ready_to_export" })).status).to.equal(200);
  });

  it("applies manage-user-schema: the hidden field is not returned, the readonly one answers 403 naming it", async () => {
    const clerk = await invite("clerk@example.test", "editor");
    const schema = await membershipApi(owner.userId).post(`/organizations/${organization.id}/manage-user-schema`, {
      user_id: clerk.userId,
      queue_id: queueId,
      fields: [
        { key: "iban", hidden: true },
        { key: "total_due", readonly: true },
      ],
    });
    expect(schema.status).to.equal(200);
    const documentId = (
      await owner.post(`/queues/${queueId}/documents`, { file_name: "c.pdf", annotations: [{ key: "iban", value: "CZ65" }] })
    ).body.data.id;
    const seen = await clerk.get(`/documents/${documentId}`);
    expect(seen.body.data.annotations).to.deep.equal([]);
    const refused = await clerk.patch(`/documents/${documentId}/annotations`, { annotations: [{ key: "total_due", value: "5" }] });
    expect(refused.status).to.equal(403);
    expect(refused.body.detail).to.contain("total_due");
  });

  it("lets a role change take effect within a second although permissions are cached (membership.changed evicts them)", async () => {
    const documentId = (await owner.post(`/queues/${queueId}/documents`, { file_name: "d.pdf" })).body.data.id;
    const promoted = await invite("promoted@example.test", "viewer");
    const edit = () => promoted.patch(`/documents/${documentId}/annotations`, { annotations: [{ key: "contract", value: "C-1" }] });
    expect((await edit()).status).to.equal(403);
    const changed = await membershipApi(owner.userId).post(`/organizations/${organization.id}/assign-roles`, [
      { operation: "set_role", user_id: promoted.userId, role: "editor" },
    ]);
    expect(changed.status).to.equal(200);
    const started = Date.now();
    await eventually(async () => ((await edit()).status === 200 ? true : undefined), 5_000, 50);
    expect(Date.now() - started).to.be.below(1_000);
  });
});
