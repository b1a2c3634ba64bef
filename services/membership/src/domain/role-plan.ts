import { ConflictError, type FieldError, ForbiddenError, ValidationError } from "@docex/kit/errors";
import { lastOwner } from "./membership-errors.js";
import { type Grant, isEffective, mayActOnRole, QUEUE_SCOPED_ROLES, type Role } from "./roles.js";
import type { AuthUser } from "./user-directory.js";

/** One entry of assign-roles, as the edge parsed it. `queueIds` undefined on set_role keeps the member's queues. */
export type RoleOperation =
  | { operation: "invite"; email: string; role: Role; queueIds: string[] | null }
  | { operation: "set_role"; userId: string; role: Role; queueIds?: string[] | null }
  | { operation: "remove"; userId: string };

/** What one entry will do, once the whole batch is accepted. */
export type PlannedChange =
  /** A new member; `userId` known when auth already has the user, else CreateInvitation creates one. */
  | { kind: "invite"; index: number; email: string; knownUser: AuthUser | undefined; after: Pick<Grant, "role" | "queueIds"> }
  /** An invite of a member who has not accepted yet: the invitation goes out again with the new role. */
  | { kind: "reinvite"; index: number; email: string; before: Grant; after: Grant }
  | { kind: "update"; index: number; before: Grant; after: Grant }
  | { kind: "remove"; index: number; before: Grant };

type Severity = 400 | 403 | 409;

interface Problem {
  severity: Severity;
  index: number;
  field?: string;
  message: string;
  lastOwner?: boolean;
}

function queueProblem(role: Role, queueIds: string[] | null | undefined): string | undefined {
  if (queueIds === null || queueIds === undefined || QUEUE_SCOPED_ROLES.has(role)) return undefined;
  return `queue_ids apply to admin, editor, approver and viewer; ${role === "owner" ? "an" : "a"} ${role} always has every queue.`;
}

/** `undefined` keeps the current queues where the new role allows them; owners and supervisors have every queue. */
function queuesAfter(role: Role, given: string[] | null | undefined, current: string[] | null): string[] | null {
  if (!QUEUE_SCOPED_ROLES.has(role)) return null;
  return given === undefined ? current : given;
}

/**
 * Decides a whole assign-roles batch against the organization's members before anything changes. Every
 * entry is checked; the answer names each bad entry's index. Invalid entries (400) are reported before
 * forbidden ones (403), forbidden ones before conflicts (409), so the status says what to fix first.
 *
 * The rules: a target of set_role / remove must be a member; each user appears once; the caller may act
 * on the target's current role and queues and on the new ones (roles.ts); nobody changes their own
 * membership; an invite of someone who is already an active member is a conflict (set_role is the way);
 * and the organization keeps at least one owner who is not deactivated. An owner who would demote or
 * remove themselves as the last owner hears 409 last_owner rather than the self rule's 403, because that
 * is the reason it can never succeed.
 */
export function planRoleChanges(
  caller: Grant,
  members: ReadonlyMap<string, Grant>,
  operations: RoleOperation[],
  usersByEmail: ReadonlyMap<string, AuthUser>,
): PlannedChange[] {
  const problems: Problem[] = [];
  const changes: PlannedChange[] = [];
  const seen = new Map<string, number>();
  const projected = new Map(members);
  const selfEntries: number[] = [];

  const claimTarget = (key: string, index: number, field: string): boolean => {
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      problems.push({ severity: 400, index, field, message: `The same user is already changed by entry ${earlier}.` });
      return false;
    }
    seen.set(key, index);
    return true;
  };

  operations.forEach((op, index) => {
    if (op.operation === "invite") {
      const email = op.email.toLowerCase();
      const knownUser = usersByEmail.get(email);
      const queueIssue = queueProblem(op.role, op.queueIds);
      if (queueIssue) problems.push({ severity: 400, index, field: "queue_ids", message: queueIssue });
      if (!claimTarget(knownUser ? knownUser.id : `email:${email}`, index, "email") || queueIssue) return;
      const after = { role: op.role, queueIds: queuesAfter(op.role, op.queueIds, null) };
      const existing = knownUser && members.get(knownUser.id);
      if (!mayActOnRole(caller, after)) {
        problems.push({ severity: 403, index, field: "role", message: `Your role may not give the role ${op.role} with these queues.` });
      }
      if (existing && !mayActOnRole(caller, existing)) {
        problems.push({ severity: 403, index, field: "email", message: `Your role may not change a member who is ${existing.role}.` });
      }
      if (knownUser?.id === caller.userId) selfEntries.push(index);
      if (!existing) {
        changes.push({ kind: "invite", index, email, knownUser, after });
        return;
      }
      if (existing.status !== "invited") {
        problems.push({ severity: 409, index, field: "email", message: "This user is already a member; change their role with set_role." });
        return;
      }
      const updated: Grant = { ...existing, ...after };
      projected.set(existing.userId, updated);
      changes.push({ kind: "reinvite", index, email, before: existing, after: updated });
      return;
    }

    const before = members.get(op.userId);
    if (!before) {
      problems.push({ severity: 400, index, field: "user_id", message: "This user is not a member of the organization." });
      return;
    }
    if (op.operation === "set_role") {
      const queueIssue = queueProblem(op.role, op.queueIds);
      if (queueIssue) problems.push({ severity: 400, index, field: "queue_ids", message: queueIssue });
      if (!claimTarget(op.userId, index, "user_id") || queueIssue) return;
      const after: Grant = { ...before, role: op.role, queueIds: queuesAfter(op.role, op.queueIds, before.queueIds) };
      if (!mayActOnRole(caller, before)) {
        problems.push({ severity: 403, index, field: "user_id", message: `Your role may not change a member who is ${before.role}.` });
      } else if (!mayActOnRole(caller, after)) {
        problems.push({ severity: 403, index, field: "role", message: `Your role may not give the role ${op.role} with these queues.` });
      }
      if (op.userId === caller.userId) selfEntries.push(index);
      projected.set(op.userId, after);
      changes.push({ kind: "update", index, before, after });
      return;
    }
    if (!claimTarget(op.userId, index, "user_id")) return;
    if (!mayActOnRole(caller, before)) {
      problems.push({ severity: 403, index, field: "user_id", message: `Your role may not remove a member who is ${before.role}.` });
    }
    if (op.userId === caller.userId) selfEntries.push(index);
    projected.delete(op.userId);
    changes.push({ kind: "remove", index, before });
  });

  const ownersLeft = [...projected.values()].filter((grant) => grant.role === "owner" && isEffective(grant)).length;
  if (ownersLeft === 0) {
    for (const change of changes) {
      const lostOwner = "before" in change && change.before.role === "owner" && (change.kind === "remove" || change.after.role !== "owner");
      if (lostOwner) {
        const verb = change.kind === "remove" ? "removed" : "demoted";
        problems.push({
          severity: 409,
          index: change.index,
          message: `The last owner of the organization cannot be ${verb}.`,
          lastOwner: true,
        });
      }
    }
  }
  // For an entry about oneself, that is the reason to give, not what the role may do.
  const reported = problems.filter((problem) => !(problem.severity === 403 && selfEntries.includes(problem.index)));
  for (const index of selfEntries) {
    if (!reported.some((problem) => problem.index === index && problem.lastOwner)) {
      reported.push({ severity: 403, index, message: "Nobody changes their own membership; ask another member who manages users." });
    }
  }

  if (reported.length > 0) throw rejection(reported);
  return changes;
}

function rejection(problems: Problem[]): Error {
  const severity = Math.min(...problems.map((problem) => problem.severity)) as Severity;
  const chosen = problems.filter((problem) => problem.severity === severity).sort((a, b) => a.index - b.index);
  const errors: FieldError[] = chosen.map((problem) => ({
    path: problem.field ? `${problem.index}.${problem.field}` : String(problem.index),
    message: problem.message,
  }));
  const first = chosen[0]!;
  const more = chosen.length > 1 ? ` (and ${chosen.length - 1} more; see errors)` : "";
  const detail = `Entry ${first.index}: ${first.message}${more} Nothing was changed.`;
  if (severity === 400) return new ValidationError(detail, errors, "invalid_role_operations");
  if (severity === 403) return new ForbiddenError(detail, "forbidden_role_operations", errors);
  if (chosen.every((problem) => problem.lastOwner)) return lastOwner(detail, errors);
  return new ConflictError(detail, "membership_conflict", errors);
}
