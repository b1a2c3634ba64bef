import { ConflictError, ForbiddenError } from "@docex/kit";
import type { ApprovalDecision, ApprovalState, StoredDocument } from "./records.js";
import { moveConflict, refuseMove } from "./status-machine.js";

export type Decision = ApprovalDecision["decision"];

/** What an approval did to its stage, for `document.approved`. */
export interface StageApproval {
  /** Counted from 1. */
  stage: number;
  stages: number;
  approvals: number;
  minApprovals: number;
  completed: boolean;
}

export interface DecisionOutcome {
  next: StoredDocument;
  /** Present for an approval (a rejection ends the route and is told by the status change). */
  approval?: StageApproval;
}

/**
 * The route a document follows: its own, or, for approvers assigned without one (`assign_approvers`, or before
 * routes were kept), a single stage of them that one approval completes. Null without approvers.
 */
export function routeOf(document: Pick<StoredDocument, "approval" | "approvers">): ApprovalState | null {
  if (document.approval) return document.approval;
  if (document.approvers.length === 0) return null;
  return { stages: [{ approverIds: document.approvers, minApprovals: 1 }], stage: 0, decisions: [] };
}

/** The route started over from its first stage: a document sent back to validation is approved again from the start. */
export function restartedRoute(document: StoredDocument): Pick<StoredDocument, "approval" | "approvers"> {
  if (!document.approval) return document;
  const approval = { ...document.approval, stage: 0, decisions: [] };
  return { approval, approvers: approval.stages[0]!.approverIds };
}

/**
 * One approver's decision on a document in approval. Only an approver of the current stage decides, once per stage;
 * the stage completes at its `min_approvals`, which assigns the next stage's approvers, and the last stage moves the
 * document to `ready_to_export` (unless an error message blocks it: nothing changes then). A rejection moves it to
 * `rejected` at once.
 */
export function decide(document: StoredDocument, userId: string, decision: Decision, at: Date): DecisionOutcome {
  if (document.status !== "in_approval") {
    throw new ConflictError(
      `Only a document in approval can be approved or rejected; this one is ${document.status}.`,
      "not_in_approval",
      [],
      { current_status: document.status },
    );
  }
  const route = routeOf(document);
  const stage = route?.stages[route.stage];
  if (!route || !stage?.approverIds.includes(userId)) {
    const where = route ? ` (stage ${route.stage + 1} of ${route.stages.length})` : "";
    throw new ForbiddenError(`You are not an approver of this document's current approval stage${where}.`, "not_an_approver");
  }
  if (route.decisions.some((earlier) => earlier.userId === userId && earlier.stage === route.stage)) {
    throw new ConflictError(`You have already decided on stage ${route.stage + 1} of this document.`, "already_decided");
  }
  const decisions = [...route.decisions, { userId, stage: route.stage, decision, at: at.toISOString() }];

  if (decision === "rejected") {
    const refusal = refuseMove(document.status, "rejected", document.messages);
    if (refusal) throw moveConflict(refusal);
    return { next: { ...document, status: "rejected", approval: { ...route, decisions } } };
  }

  const approvals = decisions.filter((each) => each.stage === route.stage && each.decision === "approved").length;
  const completed = approvals >= stage.minApprovals;
  const approval: StageApproval = {
    stage: route.stage + 1,
    stages: route.stages.length,
    approvals,
    minApprovals: stage.minApprovals,
    completed,
  };
  if (!completed) return { next: { ...document, approval: { ...route, decisions } }, approval };
  const last = route.stage === route.stages.length - 1;
  if (last) {
    const refusal = refuseMove(document.status, "ready_to_export", document.messages);
    if (refusal) throw moveConflict(refusal);
    return { next: { ...document, status: "ready_to_export", approval: { ...route, decisions } }, approval };
  }
  const next = route.stage + 1;
  return {
    next: { ...document, approvers: route.stages[next]!.approverIds, approval: { ...route, stage: next, decisions } },
    approval,
  };
}
