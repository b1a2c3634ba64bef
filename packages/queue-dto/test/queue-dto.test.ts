import { expect } from "chai";
import { QUEUE_SWITCH_DEFAULTS, queueDto, queueWithAnnotationSchemaSchema } from "../src/index.js";

describe("the queue as the API shows it", () => {
  const facts = {
    id: "0b9e7f5e-3f55-4a1b-9a52-1d0c8f3a0c11",
    humanizedId: "invoices",
    name: "Invoices",
    workspaceId: "5c1e3f1d-7a0e-4d57-8f7a-2f3b9c0d1e22",
    organizationId: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c33",
    annotationSchema: [{ key: "total_due", label: "Total due", type: "number" as const }],
    duplicateFileRejection: true,
    extractionEngine: "builtin" as const,
    documentLifetimeDays: 90,
    inboxEmail: "invoices.0123456789abcdef@docex.test",
    inboxAllowedSenders: ["@supplier.test"],
    learnFromValidation: false,
    createdAt: "2026-11-27T02:00:00.000Z",
  };

  it("puts document's facts and automation's switches in API.md's order and names, fitting the published schema", () => {
    const dto = queueDto(facts, {
      ...QUEUE_SWITCH_DEFAULTS,
      extractionEvaluation: {
        status: "enabled",
        documentConfidence: 90,
        fields: [{ key: "total_due", min_confidence: 80, required: true }],
      },
    });
    expect(Object.keys(dto)).to.deep.equal([
      "id",
      "humanized_id",
      "name",
      "workspace_id",
      "organization_id",
      "accounting_automation",
      "automation_rules",
      "extraction_evaluation",
      "annotation_schema",
      "duplicate_file_rejection",
      "extraction_engine",
      "document_lifetime_days",
      "inbox_email",
      "inbox_allowed_senders",
      "learn_from_validation",
      "created_at",
    ]);
    expect(dto).to.deep.include({
      accounting_automation: "disabled",
      extraction_evaluation: {
        status: "enabled",
        document_confidence: 90,
        fields: [{ key: "total_due", min_confidence: 80, required: true }],
      },
      duplicate_file_rejection: "enabled",
      document_lifetime_days: 90,
      learn_from_validation: false,
    });
    expect(queueWithAnnotationSchemaSchema.parse(dto)).to.deep.equal(dto);
  });

  it("shows a queue never configured with every switch off and no thresholds", () => {
    expect(queueDto(facts, QUEUE_SWITCH_DEFAULTS)).to.deep.include({
      accounting_automation: "disabled",
      automation_rules: "disabled",
      extraction_evaluation: { status: "disabled", document_confidence: null, fields: [] },
    });
  });
});
