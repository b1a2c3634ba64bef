import type { FieldDefinition } from "@docex/annotations";
import { UpstreamError } from "@docex/kit/errors";
import type { RuleStore } from "../store/rule-store.js";
import type { SettingsStore } from "../store/settings-store.js";
import { type ApprovalPlan, planApprovalRoute } from "./automation-plan.js";
import type { Annotation } from "./records.js";
import { type RegisterLookup, registerCheckOf } from "./register-lookup.js";

export interface ApprovalRouteQuestion {
  organizationId: string;
  queueId: string;
  annotations: Annotation[];
  schema: readonly FieldDefinition[];
}

/**
 * The route a queue's approval rules give a document, for the document service when a person moves it to
 * `in_approval` (gRPC PlanApprovalRoute): the same rules, in the same order, on the same conditions as a run on
 * document.extracted, so a document sent to approval by hand gets the route automation would have given it.
 */
export class ApprovalRoutes {
  constructor(private readonly deps: { settings: SettingsStore; rules: RuleStore; registerLookup: RegisterLookup }) {}

  async plan(question: ApprovalRouteQuestion, ctx: { requestId?: string } = {}): Promise<ApprovalPlan> {
    const settings = await this.deps.settings.find(question.queueId);
    const approvalRules = settings.automationRules === "enabled" ? await this.deps.rules.list(question.queueId, "approval") : [];
    const plan = await planApprovalRoute({
      settings,
      approvalRules,
      schema: question.schema,
      annotations: question.annotations,
      inRegister: registerCheckOf(this.deps.registerLookup, question.organizationId, ctx),
    });
    // A run leaves an undecided rule unfired and the document in validation; here the document would go to approval
    // without the approvers the rule may name, so the caller is told to try again instead.
    if (plan.undecidedRules.length > 0) {
      throw new UpstreamError(
        503,
        "An approval rule's register condition could not be checked (the register service did not answer); try again.",
        "register_unavailable",
      );
    }
    return plan;
  }
}
