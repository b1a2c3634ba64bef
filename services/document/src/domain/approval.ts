import { ConflictError, ForbiddenError } from "@docex/kit/errors";
import type { ApprovalDecision, ApprovalStage, ApprovalState, DocumentStatus, Queue, StoredDocument } from "./records.js";
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

/** Approvers a queue's approval rules assign to a document, and the route they belong to (absent without one). */
export interface AssignedApprovers {
  /** Non-empty: they become the document's approvers (with a route: they join its current stage). Empty: nothing changes. */
  approvers: string[];
  /** 0-based `stage`: the route is followed from there, with no decisions. */
  route?: { stages: ApprovalStage[]; stage: number };
}

/**
 * Automation's approval rules, asked for the route of a document a person moves to `in_approval` (the same rules a run
 * on its extraction applies). Throws (503) when automation cannot answer: the move waits rather than go without it.
 */
export interface ApprovalRouteSource {
  approversFor(queue: Queue, document: StoredDocument, ctx: { requestId?: string }): Promise<AssignedApprovers>;
}

/**
 * The approvers and route of `document` once `assigned` is applied, as ApplyDocumentChanges applies them: approvers
 * without a route replace the route (they are one stage of their own); a route starts afresh at its stage, the
 * approvers sent joining that stage; nothing assigned leaves both as they are.
 */
export function withAssigned(document: StoredDocument, assigned: AssignedApprovers): Pick<StoredDocument, "approvers" | "approval"> {
  const added = [...new Set(assigned.approvers)];
  if (assigned.route) {
    const { stages, stage } = assigned.route;
    const joined = stages.map((each, index) =>
      index === stage ? { ...each, approverIds: [...new Set([...each.approverIds, ...added])] } : each,
    );
    return { approval: { stages: joined, stage, decisions: [] }, approvers: joined[stage]!.approverIds };
  }
  if (added.length) return { approvers: added, approval: null };
  return { approvers: document.approvers, approval: document.approval };
}

/** Roles whose move of a document past its approval route is an override (kept in the audit log as their move). */
const APPROVAL_OVERRIDERS: ReadonlySet<string> = new Set(["owner", "supervisor"]);

export function mayOverrideApproval(role: string): boolean {
  return APPROVAL_OVERRIDERS.has(role);
}

/**
 * Whether moving `document` to `target` passes over its approval route: any move of a document in approval to
 * `ready_to_export`, and one from validation of a document that has approvers (otherwise sending it back to
 * validation and on to ready_to_export would skip the route the same way).
 */
export function skipsApproval(document: Pick<StoredDocument, "status" | "approval" | "approvers">, target: DocumentStatus): boolean {
  if (target !== "ready_to_export") return false;
  if (document.status === "in_approval") return true;
  return document.status === "to_validate" && routeOf(document) !== null;
}

/** Whether `userId` is an approver of the document's current stage who has not decided on this route yet. */
export function mayDecideNow(document: StoredDocument, userId: string): boolean {
  const route = routeOf(document);
  return (
    document.status === "in_approval" &&
    !!route?.stages[route.stage]?.approverIds.includes(userId) &&
    !route.decisions.some((earlier) => earlier.userId === userId)
  );
}

export function approvalRequired(document: StoredDocument): ForbiddenError {
  const where = document.status === "in_approval" ? "A document in approval" : "A document with approvers";
  return new ForbiddenError(
    `${where} moves to ready_to_export through its approval route (POST /documents/${document.id}/approve by the current stage's approvers); only an owner or a supervisor may override the route.`,
    "approval_required",
  );
}

/** The route started over from its first stage: a document sent back to validation is approved again from the start. */
export function restartedRoute(document: StoredDocument): Pick<StoredDocument, "approval" | "approvers"> {
  if (!document.approval) return document;
  const approval = { ...document.approval, stage: 0, decisions: [] };
  return { approval, approvers: approval.stages[0]!.approverIds };
}

/**
 * One approver's decision on a document in approval. Only an approver of the current stage decides, once per person
 * for the whole route (API.md): who approved stage 1 and is listed in stage 2 too has decided, and stage 2 needs the
 * approvals of others, so one person never completes two stages;
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
  const earlier = route.decisions.find((each) => each.userId === userId);
  if (earlier) {
    const again = earlier.stage === route.stage ? "" : "; a person decides once on a document's route, so this stage needs someone else";
    throw new ConflictError(
      `You have already ${earlier.decision} stage ${earlier.stage + 1} of this document${again}.`,
      "already_decided",
      [],
      { decided_stage: earlier.stage + 1 },
    );
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
