import { randomUUID } from "node:crypto";
import { createEvent } from "@docex/events";
import { createAutomationClient } from "@docex/protos";
import { eventually, testGrpcIdentity } from "@docex/testkit";
import { expect } from "chai";
import { RegisterDouble } from "./support/register-double.js";
import { Stack } from "./support/stack.js";

type Fixture = Awaited<ReturnType<Stack["organization"]>>;

/**
 * A person's move to in_approval (`POST /documents/{id}/status`) gets the route the queue's approval rules give the
 * document as it is then, worked out by this service (PlanApprovalRoute) exactly as a run on its extraction would.
 */
describe("a manual move to in_approval assigns the queue's approval route (real document and membership services in-process)", function () {
  this.timeout(60_000);
  let stack: Stack;
  let registers: RegisterDouble;
  let org: Fixture;

  before(async () => {
    registers = await RegisterDouble.start();
    stack = await Stack.start({ registerAddress: registers.address });
    org = await stack.organization("manual-approval");
  });
  after(async () => {
    await stack?.stop();
    await registers?.stop();
  });

  async function switchRules(queueId: string, status: "enabled" | "disabled") {
    const reply = await org.owner.patch(`/queues/${queueId}/automation-rules`, { status });
    if (reply.status !== 200) throw new Error(`automation-rules: ${reply.status} ${JSON.stringify(reply.body)}`);
  }

  async function addApprovalRule(queueId: string, rule: Record<string, unknown>): Promise<string> {
    const reply = await org.owner.post(`/queues/${queueId}/approval-automation`, { name: `rule ${randomUUID().slice(0, 8)}`, ...rule });
    if (reply.status !== 201) throw new Error(`rule: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body.data.id;
  }

  /** A document of the queue in to_validate whose extraction no approval rule matched (total_due 500). */
  async function validatedDocument(queueId: string): Promise<string> {
    const owner = org.ownerDocuments;
    const uploaded = await owner.post(`/queues/${queueId}/documents`, { file_name: "invoice.pdf" });
    if (uploaded.status !== 201) throw new Error(`upload: ${uploaded.status} ${JSON.stringify(uploaded.body)}`);
    const id = uploaded.body.data.id as string;
    const extraction = await owner.post(`/documents/${id}/extraction`, {
      annotations: [{ key: "total_due", value: "500", confidence: 99 }],
      confidence: 95,
    });
    if (extraction.status !== 200) throw new Error(`extraction: ${extraction.status} ${JSON.stringify(extraction.body)}`);
    return id;
  }

  /** Waits until the switch change reached document's projection (its queue answer shows it). */
  async function documentSees(queueId: string, status: "enabled" | "disabled") {
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const queue = await org.ownerDocuments.get(`/queues/${queueId}`);
      if (queue.body?.data?.automation_rules === status) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`document never saw automation_rules ${status} on ${queueId}`);
  }

  it("an editor's move gets the route of the rules that match the annotations as edited; the route's approvers see and approve the document", async () => {
    const queueId = await org.addQueue("manual route");
    const [first, second, editorId] = [
      await org.invite("approver", [queueId]),
      await org.invite("approver", [queueId]),
      await org.invite("editor", [queueId]),
    ];
    await switchRules(queueId, "enabled");
    await addApprovalRule(queueId, {
      action: "assign_approval_route",
      params: { stages: [{ approver_ids: [first] }, { approver_ids: [second] }] },
      conditions: { match: "all", rules: [{ field: "total_due", operator: "gt", value: 1000 }] },
    });
    await documentSees(queueId, "enabled");
    const documentId = await validatedDocument(queueId);
    const editor = stack.documentApi(editorId);

    // The extraction matched no rule; the editor's correction makes the large-invoice route apply.
    const edited = await editor.patch(`/documents/${documentId}/annotations`, { annotations: [{ key: "total_due", value: "5 000" }] });
    expect(edited.status).to.equal(200);
    expect(edited.body.data.approvers).to.deep.equal([]);
    const moved = await editor.post(`/documents/${documentId}/status`, { status: "in_approval" });
    expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
    expect(moved.body.data).to.deep.include({ status: "in_approval", approvers: [first] });
    expect(moved.body.data.approval.current_stage).to.equal(1);
    expect(moved.body.data.approval.stages.map((stage: { approver_ids: string[] }) => stage.approver_ids)).to.deep.equal([
      [first],
      [second],
    ]);

    const firstApi = stack.documentApi(first);
    const secondApi = stack.documentApi(second);
    expect((await firstApi.get(`/documents/${documentId}`)).status, "stage one's approver sees it").to.equal(200);
    expect((await secondApi.get(`/documents/${documentId}`)).status, "stage two's approver does not yet").to.equal(404);
    const one = await firstApi.post(`/documents/${documentId}/approve`);
    expect(one.status, JSON.stringify(one.body)).to.equal(200);
    expect(one.body.data).to.deep.include({ status: "in_approval", approvers: [second] });
    const two = await secondApi.post(`/documents/${documentId}/approve`);
    expect(two.status, JSON.stringify(two.body)).to.equal(200);
    expect(two.body.data.status).to.equal("ready_to_export");
  });

  it("with no rule matching, or the queue's rules switched off, the move assigns nobody, as a run would", async () => {
    const queueId = await org.addQueue("manual no route");
    const approver = await org.invite("approver", [queueId]);
    await switchRules(queueId, "enabled");
    await addApprovalRule(queueId, {
      action: "assign_approvers",
      params: { approver_ids: [approver] },
      conditions: { match: "all", rules: [{ field: "total_due", operator: "gt", value: 1000 }] },
    });
    await documentSees(queueId, "enabled");
    const unmatched = await validatedDocument(queueId);
    const moved = await org.ownerDocuments.post(`/documents/${unmatched}/status`, { status: "in_approval" });
    expect(moved.status).to.equal(200);
    expect(moved.body.data).to.deep.include({ status: "in_approval", approvers: [], approval: null });

    await switchRules(queueId, "disabled");
    await documentSees(queueId, "disabled");
    const switchedOff = await validatedDocument(queueId);
    await org.ownerDocuments.patch(`/documents/${switchedOff}/annotations`, { annotations: [{ key: "total_due", value: "9000" }] });
    const off = await org.ownerDocuments.post(`/documents/${switchedOff}/status`, { status: "in_approval" });
    expect(off.status).to.equal(200);
    expect(off.body.data.approvers).to.deep.equal([]);
  });

  it("assign_approvers without a route make one stage, which one of them approves; a rule added after the extraction applies", async () => {
    const queueId = await org.addQueue("manual approvers");
    const approver = await org.invite("approver", [queueId]);
    // Extracted while the queue had no rules: no run assigned anyone.
    const documentId = await validatedDocument(queueId);
    await switchRules(queueId, "enabled");
    await addApprovalRule(queueId, {
      action: "assign_approvers",
      params: { approver_ids: [approver] },
      conditions: { match: "all", rules: [] },
    });
    await documentSees(queueId, "enabled");
    expect((await org.ownerDocuments.get(`/documents/${documentId}`)).body.data.approvers).to.deep.equal([]);
    const moved = await org.ownerDocuments.post(`/documents/${documentId}/status`, { status: "in_approval" });
    expect(moved.status).to.equal(200);
    expect(moved.body.data.approvers).to.deep.equal([approver]);
    const approved = await stack.documentApi(approver).post(`/documents/${documentId}/approve`);
    expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
    expect(approved.body.data.status).to.equal("ready_to_export");
  });

  it("an older service receiving a newer annotation property keeps working: PlanApprovalRoute reads what it uses", async () => {
    const queueId = await org.addQueue("manual newer");
    const approver = await org.invite("approver", [queueId]);
    await switchRules(queueId, "enabled");
    await addApprovalRule(queueId, {
      action: "assign_approvers",
      params: { approver_ids: [approver] },
      conditions: { match: "all", rules: [{ field: "total_due", operator: "gt", value: 1000 }] },
    });
    // As a newer document service would call it: properties this automation does not know, on annotations and fields.
    const document = createAutomationClient(`127.0.0.1:${stack.automation.grpcPort}`, {
      identity: testGrpcIdentity("document"),
      deadlineMs: 5_000,
    });
    try {
      const plan = await document.planApprovalRoute({
        organization_id: org.organizationId,
        queue_id: queueId,
        document_id: randomUUID(),
        annotations_json: JSON.stringify([
          { key: "total_due", value: "5 000", numericValue: 5000, reviewedBy: "rule-7", values: [], confidenceBand: "high" },
        ]),
        annotation_schema_json: JSON.stringify([{ key: "total_due", label: "Total due", type: "number", hint: "Gross, VAT included" }]),
      });
      expect(plan.approvers).to.deep.equal([approver]);
      // What it uses is still checked: a value that is not text is INVALID_ARGUMENT.
      const malformed = await document
        .planApprovalRoute({
          organization_id: org.organizationId,
          queue_id: queueId,
          document_id: randomUUID(),
          annotations_json: JSON.stringify([{ key: "total_due", value: 5000 }]),
          annotation_schema_json: "[]",
        })
        .then(
          () => undefined,
          (error: Error) => error,
        );
      expect(malformed?.name).to.equal("ValidationError");
      // The answer names the field, so the caller's log says what was wrong.
      expect(malformed?.message).to.include("annotations_json");
    } finally {
      document.close();
    }
  });

  it("answers 503 and leaves the document in validation when a rule's register condition cannot be checked", async () => {
    const queueId = await org.addQueue("manual register down");
    const approver = await org.invite("approver", [queueId]);
    const registerId = randomUUID();
    registers.registers.set(registerId, { organizationId: org.organizationId, values: new Set(["CZ12345678"]) });
    await stack.tap.publish(
      createEvent("register.updated", {
        organization_id: org.organizationId,
        data: { register_id: registerId, queue_id: queueId, name: "suppliers", method: "replace", item_count: 1 },
      }),
    );
    await switchRules(queueId, "enabled");
    await eventually(() =>
      addApprovalRule(queueId, {
        action: "assign_approvers",
        params: { approver_ids: [approver] },
        conditions: { match: "all", rules: [{ field: "supplier_tax_id", operator: "in_register", value: registerId }] },
      }).catch(() => undefined),
    );
    await documentSees(queueId, "enabled");
    const documentId = await validatedDocument(queueId);
    await org.ownerDocuments.patch(`/documents/${documentId}/annotations`, {
      annotations: [{ key: "supplier_tax_id", value: "CZ12345678" }],
    });
    registers.available = false;
    try {
      const refused = await org.ownerDocuments.post(`/documents/${documentId}/status`, { status: "in_approval" });
      expect(refused.status).to.equal(503);
      expect(refused.headers.get("content-type")).to.match(/^application\/problem\+json/);
    } finally {
      registers.available = true;
    }
    expect((await org.ownerDocuments.get(`/documents/${documentId}`)).body.data).to.deep.include({ status: "to_validate", approvers: [] });
    const moved = await org.ownerDocuments.post(`/documents/${documentId}/status`, { status: "in_approval" });
    expect(moved.status).to.equal(200);
    expect(moved.body.data.approvers).to.deep.equal([approver]);
  });
});
