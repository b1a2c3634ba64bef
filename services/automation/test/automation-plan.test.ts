import type { FieldDefinition } from "@docex/annotations";
import { expect } from "chai";
import { type PlanInput, planAutomation } from "../src/domain/automation-plan.js";
import { conditionsHold, type RegisterCheck } from "../src/domain/conditions.js";
import { evaluateExtraction } from "../src/domain/extraction-evaluation.js";
import { type Annotation, type Conditions, defaultSettings, type Rule } from "../src/domain/records.js";

const SCHEMA: FieldDefinition[] = [
  { key: "supplier_name", label: "Supplier", type: "string" },
  { key: "supplier_tax_id", label: "Tax id", type: "string" },
  { key: "bank_account", label: "Bank account", type: "string", multi_value: true },
  { key: "total_due", label: "Total", type: "number" },
  { key: "due_date", label: "Due", type: "date" },
  { key: "contract", label: "Contract", type: "string" },
  {
    key: "line_items",
    label: "Lines",
    type: "table",
    columns: [
      { key: "activity", label: "Activity", type: "string" },
      { key: "total_incl_tax", label: "Total incl. tax", type: "number" },
    ],
  },
];

const DOCUMENT: Annotation[] = [
  { key: "supplier_name", value: "  ACME s.r.o. ", confidence: 95 },
  { key: "bank_account", value: "111/0100", values: [{ value: "222/0300" }], confidence: 90 },
  { key: "total_due", value: "1 234,50", numericValue: 1234.5, confidence: 85 },
  { key: "due_date", value: "31.12.2024", isoDateValue: "2024-12-31", confidence: 99 },
  {
    key: "line_items",
    value: "",
    rows: [{ activity: { value: "Hosting" }, total_incl_tax: { value: "100", numericValue: 100 } }, { activity: { value: "Support" } }],
    confidence: 70,
  },
];

const noRegister: RegisterCheck = async () => new Set();
const holds = (rules: Conditions["rules"], match: Conditions["match"] = "all", inRegister = noRegister) =>
  conditionsHold({ match, rules }, SCHEMA, DOCUMENT, inRegister);

describe("conditions over annotation values (unit)", () => {
  it("compares text trimmed and case-insensitively, numbers by numericValue and dates by isoDateValue", async () => {
    expect(await holds([{ field: "supplier_name", operator: "eq", value: "acme S.R.O." }])).to.equal(true);
    expect(await holds([{ field: "supplier_name", operator: "contains", value: "acme" }])).to.equal(true);
    expect(await holds([{ field: "supplier_name", operator: "neq", value: "acme s.r.o." }])).to.equal(false);
    expect(await holds([{ field: "total_due", operator: "eq", value: 1234.5 }])).to.equal(true);
    expect(await holds([{ field: "total_due", operator: "gt", value: 1000 }])).to.equal(true);
    expect(await holds([{ field: "total_due", operator: "gte", value: 1234.5 }])).to.equal(true);
    expect(await holds([{ field: "total_due", operator: "lt", value: 1234.5 }])).to.equal(false);
    expect(await holds([{ field: "total_due", operator: "lte", value: 1234.5 }])).to.equal(true);
    expect(await holds([{ field: "due_date", operator: "gt", value: "2024-12-30" }])).to.equal(true);
    expect(await holds([{ field: "due_date", operator: "lt", value: "2024-12-31" }])).to.equal(false);
    expect(await holds([{ field: "due_date", operator: "eq", value: "2024-12-31" }])).to.equal(true);
  });

  it("treats a missing field as empty: exists fails, not_exists and neq hold, comparisons fail", async () => {
    expect(await holds([{ field: "contract", operator: "exists" }])).to.equal(false);
    expect(await holds([{ field: "contract", operator: "not_exists" }])).to.equal(true);
    expect(await holds([{ field: "contract", operator: "neq", value: "x" }])).to.equal(true);
    expect(await holds([{ field: "contract", operator: "eq", value: "" }])).to.equal(false);
    expect(await holds([{ field: "supplier_tax_id", operator: "in_register", value: "r" }])).to.equal(false);
  });

  it("matches a multi-value field or a table column when one of its values does; a table exists when it has a row", async () => {
    expect(await holds([{ field: "bank_account", operator: "eq", value: "222/0300" }])).to.equal(true);
    expect(await holds([{ field: "bank_account", operator: "neq", value: "222/0300" }])).to.equal(false);
    expect(await holds([{ field: "activity", operator: "eq", value: "support" }])).to.equal(true);
    expect(await holds([{ field: "total_incl_tax", operator: "gt", value: 99 }])).to.equal(true);
    expect(await holds([{ field: "line_items", operator: "exists" }])).to.equal(true);
  });

  it("combines with all / any; no conditions match every document", async () => {
    const yes = { field: "supplier_name", operator: "exists" } as const;
    const no = { field: "contract", operator: "exists" } as const;
    expect(await holds([yes, no], "all")).to.equal(false);
    expect(await holds([yes, no], "any")).to.equal(true);
    expect(await holds([], "all")).to.equal(true);
    expect(await holds([], "any")).to.equal(true);
  });

  it("asks the register for in_register; an unavailable register leaves the verdict undecided unless the rest decides it", async () => {
    const asked: Array<[string, string[]]> = [];
    const register: RegisterCheck = async (id, values) => {
      asked.push([id, values]);
      return new Set(values.filter((value) => value === "111/0100"));
    };
    expect(await holds([{ field: "bank_account", operator: "in_register", value: "reg" }], "all", register)).to.equal(true);
    expect(asked).to.deep.equal([["reg", ["111/0100", "222/0300"]]]);
    const down: RegisterCheck = async () => "unknown";
    const inRegister = { field: "bank_account", operator: "in_register", value: "reg" } as const;
    expect(await holds([inRegister], "all", down)).to.equal("unknown");
    expect(await holds([inRegister, { field: "contract", operator: "exists" }], "all", down)).to.equal(false);
    expect(await holds([inRegister, { field: "supplier_name", operator: "exists" }], "any", down)).to.equal(true);
  });
});

describe("extraction evaluation thresholds (unit)", () => {
  const evaluation = (
    fields: Array<{ key: string; min_confidence: number; required: boolean }>,
    documentConfidence: number | null = 90,
  ) => ({
    status: "enabled" as const,
    documentConfidence,
    fields,
  });

  it("needs the document confidence, every required field, and each present field's min_confidence", () => {
    expect(
      evaluateExtraction(evaluation([{ key: "total_due", min_confidence: 80, required: true }]), SCHEMA, DOCUMENT, 95, new Set()).met,
    ).to.equal(true);
    expect(evaluateExtraction(evaluation([]), SCHEMA, DOCUMENT, 89.9, new Set()).blockers).to.deep.equal([
      { key: null, reason: "document confidence 89.9 is below 90" },
    ]);
    expect(evaluateExtraction(evaluation([], null), SCHEMA, DOCUMENT, 99, new Set()).met).to.equal(false);
    expect(
      evaluateExtraction(evaluation([{ key: "contract", min_confidence: 50, required: true }]), SCHEMA, DOCUMENT, 95, new Set()).blockers,
    ).to.deep.equal([{ key: "contract", reason: "contract is required and empty" }]);
    expect(
      evaluateExtraction(evaluation([{ key: "contract", min_confidence: 50, required: false }]), SCHEMA, DOCUMENT, 95, new Set()).met,
    ).to.equal(true);
    expect(
      evaluateExtraction(evaluation([{ key: "total_due", min_confidence: 90, required: false }]), SCHEMA, DOCUMENT, 95, new Set()).met,
    ).to.equal(false);
  });

  it("counts a value set by a rule as certain, a value without confidence as not, and judges a column by its table", () => {
    const learned: Annotation[] = [...DOCUMENT, { key: "contract", value: "C-1", source: "learned" }];
    const contract = evaluation([{ key: "contract", min_confidence: 99, required: true }]);
    expect(evaluateExtraction(contract, SCHEMA, learned, 95, new Set()).blockers).to.deep.equal([
      { key: "contract", reason: "contract has no confidence" },
    ]);
    expect(evaluateExtraction(contract, SCHEMA, learned, 95, new Set(["contract"])).met).to.equal(true);
    expect(
      evaluateExtraction(evaluation([{ key: "activity", min_confidence: 70, required: true }]), SCHEMA, DOCUMENT, 95, new Set()).met,
    ).to.equal(true);
    expect(
      evaluateExtraction(evaluation([{ key: "activity", min_confidence: 71, required: true }]), SCHEMA, DOCUMENT, 95, new Set()).met,
    ).to.equal(false);
  });
});

describe("planning a run (unit)", () => {
  let sequence = 0;
  const rule = (
    kind: Rule["kind"],
    action: Rule["action"],
    params: Rule["params"],
    conditions: Conditions = { match: "all", rules: [] },
  ): Rule => {
    sequence += 1;
    return {
      id: `rule-${sequence}`,
      queueId: "q",
      organizationId: "o",
      kind,
      name: `rule ${sequence}`,
      action,
      params,
      conditions,
      position: sequence,
      createdAt: new Date(),
      updatedAt: new Date(),
    };
  };
  const input = (overrides: Partial<PlanInput>): PlanInput => ({
    settings: { ...defaultSettings("q"), accountingAutomation: "enabled", automationRules: "enabled" },
    accountingRules: [],
    approvalRules: [],
    schema: SCHEMA,
    document: { annotations: DOCUMENT, confidence: 95, approvers: [] },
    inRegister: noRegister,
    mayMoveStatus: true,
    ...overrides,
  });

  it("runs accounting rules in order on what the earlier ones set, never overwriting a person's value", async () => {
    const first = rule("accounting", "apply_accounting_automation", { set: { contract: "A", due_date: "31.1.2025" } });
    const second = rule(
      "accounting",
      "apply_accounting_automation",
      { set: { contract: "B", total_due: "10" } },
      {
        match: "all",
        rules: [{ field: "due_date", operator: "eq", value: "2025-01-31" }],
      },
    );
    const typed: Annotation[] = [
      ...DOCUMENT.filter((annotation) => annotation.key !== "total_due"),
      { key: "total_due", value: "7", source: "user" },
    ];
    const plan = await planAutomation(
      input({ accountingRules: [first, second], document: { annotations: typed, confidence: 95, approvers: [] } }),
    );
    expect(plan.appliedRules).to.deep.equal([first.id, second.id]);
    expect(plan.annotations).to.deep.equal([
      { key: "contract", value: "B", source: "automation" },
      { key: "due_date", value: "31.1.2025", source: "automation", isoDateValue: "2025-01-31" },
    ]);
  });

  it("assigns a route's first stage, adds approvers to it, moves to the next stage, and goes to in_approval when evaluation passes", async () => {
    const route = rule("approval", "assign_approval_route", { stages: [{ approver_ids: ["a"] }, { approver_ids: ["b", "c"] }] });
    const add = rule("approval", "assign_approvers", { approver_ids: ["d"] });
    const next = rule("approval", "move_to_next_stage", {}, { match: "all", rules: [{ field: "total_due", operator: "gt", value: 5000 }] });
    const evaluation = { status: "enabled" as const, documentConfidence: 90, fields: [] };
    const settings = { ...input({}).settings, extractionEvaluation: evaluation };
    const plan = await planAutomation(input({ settings, approvalRules: [route, add, next] }));
    expect(plan).to.deep.include({ approvers: ["a", "d"], appliedRules: [route.id, add.id], status: "in_approval" });
    expect(plan.route).to.deep.equal({ stages: [{ approver_ids: ["a"] }, { approver_ids: ["b", "c"] }], stage: 0 });

    const large: Annotation[] = [
      ...DOCUMENT.filter((annotation) => annotation.key !== "total_due"),
      { key: "total_due", value: "9000", numericValue: 9000 },
    ];
    const moved = await planAutomation(
      input({ settings, approvalRules: [route, add, next], document: { annotations: large, confidence: 95, approvers: [] } }),
    );
    expect(moved).to.deep.include({ approvers: ["b", "c"], status: "in_approval" });
    const notAllowed = await planAutomation(input({ settings, approvalRules: [route], mayMoveStatus: false }));
    expect(notAllowed.status).to.equal(undefined);
    expect(notAllowed.approvers).to.deep.equal(["a"]);
  });

  it("runs nothing with automation_rules off, no accounting rule with accounting off, and skips nothing when a rule is undecided", async () => {
    const set = rule("accounting", "apply_accounting_automation", { set: { contract: "X" } });
    const approve = rule("approval", "assign_approvers", { approver_ids: ["a"] });
    const base = input({}).settings;
    const rulesOff = await planAutomation(
      input({ settings: { ...base, automationRules: "disabled" }, accountingRules: [set], approvalRules: [approve] }),
    );
    expect(rulesOff.appliedRules).to.deep.equal([]);
    const accountingOff = await planAutomation(
      input({ settings: { ...base, accountingAutomation: "disabled" }, accountingRules: [set], approvalRules: [approve] }),
    );
    expect(accountingOff.appliedRules).to.deep.equal([approve.id]);

    const evaluation = { status: "enabled" as const, documentConfidence: 50, fields: [] };
    const undecided = rule(
      "accounting",
      "apply_accounting_automation",
      { set: { contract: "X" } },
      {
        match: "all",
        rules: [{ field: "supplier_name", operator: "in_register", value: "reg" }],
      },
    );
    const plan = await planAutomation(
      input({ settings: { ...base, extractionEvaluation: evaluation }, accountingRules: [undecided], inRegister: async () => "unknown" }),
    );
    expect(plan).to.deep.include({ appliedRules: [], undecidedRules: [undecided.id] });
    expect(plan.status).to.equal(undefined);
    expect(plan.evaluation?.met).to.equal(false);
  });
});
