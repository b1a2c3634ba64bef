import { randomUUID } from "node:crypto";
import { createEvent } from "@docex/events";
import { eventually } from "@docex/testkit";
import { expect } from "chai";
import { RegisterDouble } from "./support/register-double.js";
import { Stack } from "./support/stack.js";

type Fixture = Awaited<ReturnType<Stack["organization"]>>;
type Annotation = { key: string; value: string; confidence?: number; source?: string };

const ANY_DOCUMENT = { match: "all", rules: [] };

describe("running automation on new extractions (real document and membership services in-process)", function () {
  this.timeout(60_000);
  let stack: Stack;
  let registers: RegisterDouble;
  let org: Fixture;

  before(async () => {
    registers = await RegisterDouble.start();
    stack = await Stack.start({ registerAddress: registers.address });
    org = await stack.organization("running");
  });
  after(async () => {
    await stack?.stop();
    await registers?.stop();
  });

  const owner = () => org.owner;
  const documents = () => org.ownerDocuments;

  async function configure(
    queueId: string,
    setup: { accounting?: boolean; rules?: boolean; evaluation?: { document_confidence: number; fields: unknown[] } },
  ) {
    const patch = async (path: string, on: boolean | undefined) => {
      const reply = await owner().patch(`/queues/${queueId}/${path}`, { status: on ? "enabled" : "disabled" });
      if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    };
    await patch("accounting-automation", setup.accounting);
    await patch("automation-rules", setup.rules);
    if (setup.evaluation) {
      const reply = await owner().put(`/queues/${queueId}/extraction-evaluation`, setup.evaluation);
      if (reply.status !== 200) throw new Error(`extraction-evaluation: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    await patch("extraction-evaluation", setup.evaluation !== undefined);
  }

  async function addRule(queueId: string, kind: "accounting" | "approval", rule: Record<string, unknown>): Promise<string> {
    const path = kind === "accounting" ? "accounting-automation-rules" : "approval-automation";
    const reply = await owner().post(`/queues/${queueId}/${path}`, {
      name: `rule ${randomUUID().slice(0, 8)}`,
      conditions: ANY_DOCUMENT,
      ...rule,
    });
    if (reply.status !== 201) throw new Error(`rule: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body.data.id;
  }

  /** Uploads a document and posts the extraction engine's result, as the engine would. */
  async function extract(queueId: string, annotations: Annotation[], confidence: number | null): Promise<string> {
    const uploaded = await documents().post(`/queues/${queueId}/documents`, { file_name: "invoice.pdf" });
    if (uploaded.status !== 201) throw new Error(`upload: ${uploaded.status} ${JSON.stringify(uploaded.body)}`);
    const id = uploaded.body.data.id as string;
    const extraction = await documents().post(`/documents/${id}/extraction`, { annotations, confidence });
    if (extraction.status !== 200) throw new Error(`extraction: ${extraction.status} ${JSON.stringify(extraction.body)}`);
    return id;
  }

  const runOf = (documentId: string) => eventually(async () => (await stack.runsOf(documentId))[0]);
  const documentOf = async (documentId: string) => (await documents().get(`/documents/${documentId}`)).body.data;
  const annotationOf = (document: { annotations: Annotation[] }, key: string) =>
    document.annotations.find((annotation) => annotation.key === key);
  const appliedEventsOf = (documentId: string) => stack.tap.ofType("automation.applied", (event) => event.data.document_id === documentId);

  it("applies accounting rules in order: each sees what the earlier ones set, the later value wins; reordering changes the outcome", async () => {
    const queueId = await org.addQueue("accounting in order");
    await configure(queueId, { accounting: true, rules: true });
    const first = await addRule(queueId, "accounting", {
      action: "apply_accounting_automation",
      params: { set: { contract: "FIRST", iban: "CZ6508000000192000145399" } },
      conditions: { match: "all", rules: [{ field: "supplier_name", operator: "contains", value: "acme" }] },
    });
    const second = await addRule(queueId, "accounting", {
      action: "apply_accounting_automation",
      params: { set: { contract: "SECOND", total_due: 99.5 } },
      conditions: { match: "all", rules: [{ field: "contract", operator: "eq", value: "first" }] },
    });
    const never = await addRule(queueId, "accounting", {
      action: "apply_accounting_automation",
      params: { set: { due_date: "2030-01-01" } },
      conditions: {
        match: "any",
        rules: [
          { field: "total_due", operator: "gt", value: 1_000_000 },
          { field: "due_date", operator: "exists" },
        ],
      },
    });
    const extraction: Annotation[] = [
      { key: "supplier_name", value: "ACME s.r.o.", confidence: 99 },
      { key: "total_due", value: "1 234,50", confidence: 95 },
    ];

    const documentId = await extract(queueId, extraction, 95);
    expect(await runOf(documentId)).to.deep.include({ outcome: "applied", applied_rules: [first, second], status: null });
    const document = await documentOf(documentId);
    expect(document.status).to.equal("to_validate");
    expect(annotationOf(document, "contract")).to.deep.include({ value: "SECOND", source: "automation" });
    expect(annotationOf(document, "iban")).to.deep.include({ value: "CZ6508000000192000145399", source: "automation" });
    expect(annotationOf(document, "total_due")).to.deep.include({ value: "99.5", numericValue: 99.5 });
    expect(annotationOf(document, "due_date")).to.equal(undefined);
    const applied = await eventually(() => appliedEventsOf(documentId)[0]);
    expect(applied.data).to.deep.equal({ document_id: documentId, queue_id: queueId, applied_rules: [first, second], status: null });
    expect(applied.organization_id).to.equal(org.organizationId);
    expect(applied.actor_user_id, "the system acted").to.equal(null);

    const reordered = await owner().put(`/queues/${queueId}/accounting-automation-rules/order`, { rule_ids: [second, never, first] });
    expect(reordered.status).to.equal(200);
    const afterReorder = await extract(queueId, extraction, 95);
    expect((await runOf(afterReorder)).applied_rules).to.deep.equal([first]);
    expect(annotationOf(await documentOf(afterReorder), "contract")).to.deep.include({ value: "FIRST" });
  });

  it("applies no rule while a switch is off: accounting_automation off, or automation_rules (all rules) off", async () => {
    const queueId = await org.addQueue("switched off");
    await addRule(queueId, "accounting", { action: "apply_accounting_automation", params: { set: { contract: "SHOULD NOT" } } });
    await configure(queueId, { accounting: false, rules: true });
    const accountingOff = await extract(queueId, [{ key: "supplier_name", value: "Acme" }], 99);
    expect((await runOf(accountingOff)).outcome).to.equal("nothing_to_apply");

    await configure(queueId, { accounting: true, rules: false });
    const rulesOff = await extract(queueId, [{ key: "supplier_name", value: "Acme" }], 99);
    expect((await runOf(rulesOff)).outcome).to.equal("switched_off");

    for (const documentId of [accountingOff, rulesOff]) {
      const document = await documentOf(documentId);
      expect(annotationOf(document, "contract"), documentId).to.equal(undefined);
      expect(document.status).to.equal("to_validate");
      expect(appliedEventsOf(documentId)).to.deep.equal([]);
    }
  });

  it("extraction evaluation moves a confident document to ready_to_export and leaves unconfident ones in to_validate", async () => {
    const queueId = await org.addQueue("evaluation");
    await configure(queueId, {
      evaluation: {
        document_confidence: 90,
        fields: [
          { key: "total_due", min_confidence: 80, required: true },
          { key: "invoice_id", min_confidence: 90, required: false },
        ],
      },
    });
    const confident = await extract(
      queueId,
      [
        { key: "total_due", value: "100", confidence: 91 },
        { key: "invoice_id", value: "INV-1", confidence: 97 },
      ],
      95,
    );
    const weakField = await extract(queueId, [{ key: "total_due", value: "100", confidence: 70 }], 95);
    const weakDocument = await extract(queueId, [{ key: "total_due", value: "100", confidence: 99 }], 85);
    const missingRequired = await extract(queueId, [{ key: "invoice_id", value: "INV-2", confidence: 99 }], 99);
    const noConfidence = await extract(queueId, [{ key: "total_due", value: "100", confidence: 99 }], null);

    expect(await runOf(confident)).to.deep.include({ outcome: "applied", status: "ready_to_export", applied_rules: [] });
    expect((await documentOf(confident)).status).to.equal("ready_to_export");
    expect((await eventually(() => appliedEventsOf(confident)[0])).data.status).to.equal("ready_to_export");
    expect((await documentOf(confident)).automation_blockers).to.deep.equal([]);
    const expectations: Array<[string, string | null, string]> = [
      [weakField, "total_due", "total_due confidence 70 is below 80"],
      [weakDocument, null, "document confidence 85 is below 90"],
      [missingRequired, "total_due", "total_due is required and empty"],
      [noConfidence, null, "the document has no confidence"],
    ];
    for (const [documentId, key, reason] of expectations) {
      const run = await runOf(documentId);
      expect(run.outcome).to.equal("nothing_to_apply");
      expect(run.reason).to.contain(reason);
      const document = await documentOf(documentId);
      expect(document.status).to.equal("to_validate");
      // The document says why it was kept, field by field.
      expect(document.automation_blockers).to.deep.equal([{ key, reason }]);
    }
  });

  it("approval rules assign approvers and stages; with extraction evaluation met the document goes to in_approval, where its approver sees it", async () => {
    const queueId = await org.addQueue("approval");
    const [first, secondA, secondB, extra] = [
      await org.invite("approver"),
      await org.invite("approver"),
      await org.invite("approver"),
      await org.invite("approver"),
    ];
    await configure(queueId, { rules: true, evaluation: { document_confidence: 90, fields: [] } });
    const route = await addRule(queueId, "approval", {
      action: "assign_approval_route",
      params: { stages: [{ approver_ids: [first] }, { approver_ids: [secondA, secondB], min_approvals: 1 }] },
    });
    const additional = await addRule(queueId, "approval", {
      action: "assign_approvers",
      params: { approver_ids: [extra] },
      conditions: { match: "all", rules: [{ field: "total_due", operator: "gt", value: 1000 }] },
    });
    const skip = await addRule(queueId, "approval", {
      action: "move_to_next_stage",
      params: {},
      conditions: { match: "all", rules: [{ field: "total_due", operator: "gte", value: 10000 }] },
    });

    const small = await extract(queueId, [{ key: "total_due", value: "500", confidence: 99 }], 95);
    const medium = await extract(queueId, [{ key: "total_due", value: "5 000", confidence: 99 }], 95);
    const large = await extract(queueId, [{ key: "total_due", value: "20000", confidence: 99 }], 80);

    expect(await runOf(small)).to.deep.include({ outcome: "applied", applied_rules: [route], status: "in_approval" });
    expect(await documentOf(small)).to.deep.include({ status: "in_approval", approvers: [first] });
    expect(await runOf(medium)).to.deep.include({ applied_rules: [route, additional], status: "in_approval" });
    expect((await documentOf(medium)).approvers).to.have.members([first, extra]);
    // Below the document threshold: approvers assigned, validation not skipped.
    expect(await runOf(large)).to.deep.include({ applied_rules: [route, additional, skip], status: null });
    const largeDocument = await documentOf(large);
    expect(largeDocument.status).to.equal("to_validate");
    expect(largeDocument.approvers).to.have.members([secondA, secondB]);
    // The document keeps the route: its stages, and the stage it is in (assign_approvers joins the current one).
    const stagesOf = (document: { approval: { stages: Array<{ approver_ids: string[]; min_approvals: number }> } }) =>
      document.approval.stages.map((stage) => ({ approvers: [...stage.approver_ids].sort(), min: stage.min_approvals }));
    expect((await documentOf(small)).approval.current_stage).to.equal(1);
    expect(stagesOf(await documentOf(small))).to.deep.equal([
      { approvers: [first], min: 1 },
      { approvers: [secondA, secondB].sort(), min: 1 },
    ]);
    expect(stagesOf(await documentOf(medium))[0]!.approvers).to.deep.equal([first, extra].sort());
    expect(largeDocument.approval.current_stage).to.equal(2);

    const approver = stack.documentApi(first);
    expect((await approver.get(`/documents/${small}`)).status).to.equal(200);
    expect((await approver.get(`/documents/${large}`)).status).to.equal(404);
  });

  it("is idempotent on a redelivered document.extracted: nothing is applied, recorded or announced twice", async () => {
    const queueId = await org.addQueue("redelivery");
    await configure(queueId, { accounting: true, rules: true, evaluation: { document_confidence: 50, fields: [] } });
    await addRule(queueId, "accounting", { action: "apply_accounting_automation", params: { set: { contract: "ONCE" } } });
    const documentId = await extract(queueId, [{ key: "supplier_name", value: "Acme", confidence: 99 }], 99);
    expect((await runOf(documentId)).outcome).to.equal("applied");
    const before = (await stack.documentGrpc.getDocument({ document_id: documentId })).document!;
    expect(before.status).to.equal("ready_to_export");
    const extracted = await eventually(() => stack.tap.ofType("document.extracted", (event) => event.data.document_id === documentId)[0]);
    await eventually(() => appliedEventsOf(documentId)[0]);

    // The same event again (another message id, so JetStream delivers it), then an extraction elsewhere that the
    // consumer handles after it: once that one is recorded, the redelivery has been handled too.
    await stack.tap.publish(extracted, `${extracted.id}:again`);
    await stack.tap.publish(extracted, `${extracted.id}:and-again`);
    const barrierQueue = await org.addQueue("redelivery barrier");
    const barrier = await extract(barrierQueue, [], 50);
    expect((await runOf(barrier)).outcome).to.equal("switched_off");
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(await stack.runsOf(documentId)).to.have.length(1);
    expect(appliedEventsOf(documentId)).to.have.length(1);
    const after = (await stack.documentGrpc.getDocument({ document_id: documentId })).document!;
    expect(after.version).to.equal(before.version);
  });

  it("re-evaluates on the current document when the extraction's version is stale, leaving a person's value alone", async () => {
    const queueId = await org.addQueue("stale version");
    const documentId = await extract(queueId, [{ key: "supplier_name", value: "Acme", confidence: 99 }], 99);
    expect((await runOf(documentId)).outcome).to.equal("switched_off");
    const extracted = await eventually(() => stack.tap.ofType("document.extracted", (event) => event.data.document_id === documentId)[0]);
    const edited = await documents().patch(`/documents/${documentId}/annotations`, {
      annotations: [{ key: "contract", value: "TYPED BY HAND" }],
    });
    expect(edited.status).to.equal(200);

    await configure(queueId, { accounting: true, rules: true, evaluation: { document_confidence: 90, fields: [] } });
    const rule = await addRule(queueId, "accounting", {
      action: "apply_accounting_automation",
      params: { set: { contract: "BY RULE", iban: "CZ6508000000192000145399" } },
    });
    // An extraction event automation has not seen, based on the version before the person's edit.
    const stale = { ...extracted, id: randomUUID() };
    await stack.tap.publish(stale);

    const run = await eventually(async () => (await stack.runsOf(documentId))[1]);
    expect(run).to.deep.include({ outcome: "applied", attempts: 2, applied_rules: [rule], status: "ready_to_export" });
    const document = await documentOf(documentId);
    expect(document.status).to.equal("ready_to_export");
    expect(annotationOf(document, "contract")).to.deep.include({ value: "TYPED BY HAND", source: "user" });
    expect(annotationOf(document, "iban")).to.deep.include({ value: "CZ6508000000192000145399", source: "automation" });
  });

  it("applies the fields without the status move when an error message blocks it", async () => {
    const queueId = await org.addQueue("blocked");
    const documentId = await extract(queueId, [{ key: "supplier_name", value: "Acme", confidence: 99 }], 99);
    expect((await runOf(documentId)).outcome).to.equal("switched_off");
    const extracted = await eventually(() => stack.tap.ofType("document.extracted", (event) => event.data.document_id === documentId)[0]);
    const blocked = await stack.documentGrpc.applyDocumentChanges({
      document_id: documentId,
      expected_version: 0,
      source: "validation",
      annotations_json: "",
      messages_json: JSON.stringify([{ key: "iban", message: "IBAN unknown to the ERP", severity: "error" }]),
      options_json: "",
      approvers: [],
      applied_rules: [],
      replace_messages: true,
      idempotency_key: "",
      cells_json: "",
      approval_route_json: "",
      automation_blockers_json: "",
    });
    expect(blocked.applied).to.equal(true);

    await configure(queueId, { accounting: true, rules: true, evaluation: { document_confidence: 50, fields: [] } });
    const rule = await addRule(queueId, "accounting", { action: "apply_accounting_automation", params: { set: { contract: "BY RULE" } } });
    await stack.tap.publish({ ...extracted, id: randomUUID() });

    const run = await eventually(async () => (await stack.runsOf(documentId))[1]);
    expect(run).to.deep.include({ outcome: "applied", attempts: 3, applied_rules: [rule], status: null });
    const document = await documentOf(documentId);
    expect(document.status).to.equal("to_validate");
    expect(annotationOf(document, "contract")).to.deep.include({ value: "BY RULE" });
    expect(document.automation_blockers).to.deep.equal([
      { key: null, reason: "the move out of manual validation was refused: blocked_by_error_messages" },
    ]);
  });

  it("decides in_register through the register service; while it is down the rule is not applied and validation is not skipped", async () => {
    const queueId = await org.addQueue("registers");
    const registerId = randomUUID();
    registers.registers.set(registerId, { organizationId: org.organizationId, values: new Set(["CZ12345678"]) });
    await stack.tap.publish(
      createEvent("register.updated", {
        organization_id: org.organizationId,
        data: { register_id: registerId, queue_id: queueId, name: "suppliers", method: "replace", item_count: 1 },
      }),
    );
    await configure(queueId, { accounting: true, rules: true, evaluation: { document_confidence: 50, fields: [] } });
    const rule = await eventually(() =>
      addRule(queueId, "accounting", {
        action: "apply_accounting_automation",
        params: { set: { contract: "KNOWN SUPPLIER" } },
        conditions: { match: "all", rules: [{ field: "supplier_tax_id", operator: "in_register", value: registerId }] },
      }).catch(() => undefined),
    );

    const known = await extract(queueId, [{ key: "supplier_tax_id", value: "CZ12345678", confidence: 99 }], 99);
    expect(await runOf(known)).to.deep.include({ outcome: "applied", applied_rules: [rule], status: "ready_to_export" });
    expect(annotationOf(await documentOf(known), "contract")).to.deep.include({ value: "KNOWN SUPPLIER" });
    const unknown = await extract(queueId, [{ key: "supplier_tax_id", value: "CZ00000000", confidence: 99 }], 99);
    expect(await runOf(unknown)).to.deep.include({ applied_rules: [], status: "ready_to_export" });

    registers.available = false;
    const undecided = await extract(queueId, [{ key: "supplier_tax_id", value: "CZ12345678", confidence: 99 }], 99);
    const run = await runOf(undecided);
    expect(run).to.deep.include({ outcome: "nothing_to_apply", applied_rules: [] });
    expect(run.reason).to.contain("could not be decided");
    expect((await documentOf(undecided)).status).to.equal("to_validate");
  });
});
