import { ForbiddenError, type NotFoundError } from "@docex/kit/errors";

/** The permission names of membership.proto's CheckPermission. */
export type Permission =
  | "document.read"
  | "document.edit"
  | "document.approve"
  | "workspace.create"
  | "queue.manage"
  | "signing_key.manage"
  | "user.manage"
  | "audit_log.read";

export interface PermissionQuery {
  userId: string;
  /** UUID, not a humanized id. */
  organizationId: string;
  permission: Permission;
  /** Narrows the question to one queue; absent (or null) asks about the organization as a whole. */
  queueId?: string | null;
}

export interface PermissionAnswer {
  allowed: boolean;
  /** False for a user without a (non-deactivated) membership: the resource answers 404, not 403. */
  isMember: boolean;
  role: string;
}

/** A member's role and the queues it covers: null is every queue of the organization. */
export interface QueueReach {
  role: string;
  queueIds: string[] | null;
}

export interface CallContext {
  requestId?: string;
}

/** Where permission answers come from: membership's CheckPermission, behind a cache (the port every service's domain uses). */
export interface PermissionSource {
  checkPermission(query: PermissionQuery, ctx?: CallContext): Promise<PermissionAnswer>;
}

/** Who belongs to an organization: membership's GetRoles, behind the same cache. */
export interface MemberCheck {
  /** True when the user has a membership in the organization that is not deactivated. */
  isMember(userId: string, organizationId: string, ctx?: CallContext): Promise<boolean>;
}

/** The user behind a request, as a domain needs them. */
export interface Actor {
  userId: string;
  requestId: string;
}

/** What a permission is checked against: an organization, narrowed to a queue where there is one. */
export interface Scope {
  organizationId: string;
  queueId?: string | null;
}

/** Whether an answer lets the caller see what was asked about (a member who holds the permission). */
export function isVisible(answer: PermissionAnswer): boolean {
  return answer.isMember && answer.allowed;
}

/**
 * The approver-only rule (API.md "Roles"): an approver reads only the documents assigned to them. Membership answers
 * `role: "approver"` and leaves the assignment to the service that knows a document's approvers.
 */
export function isApproverOnly(answer: Pick<PermissionAnswer, "role">): boolean {
  return answer.role === "approver";
}

/**
 * 404 (from `notFound`) when `answer` is an approver's and the caller is not among the document's approvers (none
 * known counts as not assigned). `approvers` is asked only for an approver.
 */
export async function requireAssigned(
  answer: PermissionAnswer,
  actor: Actor,
  approvers: () => readonly string[] | undefined | Promise<readonly string[] | undefined>,
  notFound: () => NotFoundError,
): Promise<void> {
  if (!isApproverOnly(answer)) return;
  if (!(await approvers())?.includes(actor.userId)) throw notFound();
}

/** The 403 of a member whose role does not allow `action` (e.g. "editing documents here"). */
export function forbidden(role: string, action: string): ForbiddenError {
  return new ForbiddenError(`Your role${role ? ` (${role})` : ""} does not allow ${action}.`);
}

/**
 * The rule every service applies to membership's answers: what the caller may not see answers 404 (so ids
 * of other organizations, and of queues outside a member's queue_ids, do not leak); what they may see but
 * not do answers 403.
 */
export class AccessCheck {
  constructor(private readonly permissions: PermissionSource) {}

  ask(actor: Actor, permission: Permission, scope: Scope): Promise<PermissionAnswer> {
    return this.permissions.checkPermission(
      { userId: actor.userId, organizationId: scope.organizationId, permission, ...(scope.queueId ? { queueId: scope.queueId } : {}) },
      { requestId: actor.requestId },
    );
  }

  /** Whether the caller may do `permission` within the scope (no error either way). */
  async allows(actor: Actor, permission: Permission, scope: Scope): Promise<boolean> {
    return isVisible(await this.ask(actor, permission, scope));
  }

  /** The caller's read grant within `scope`, or `notFound` when they may not see it. */
  async requireVisible(actor: Actor, scope: Scope, notFound: () => NotFoundError): Promise<PermissionAnswer> {
    const answer = await this.ask(actor, "document.read", scope);
    if (!isVisible(answer)) throw notFound();
    return answer;
  }

  /** 404 for a non-member, 403 (naming `action`) for a member whose role does not allow `permission`. */
  async require(
    actor: Actor,
    permission: Permission,
    scope: Scope,
    notFound: () => NotFoundError,
    action: string,
  ): Promise<PermissionAnswer> {
    const answer = await this.ask(actor, permission, scope);
    if (!answer.isMember) throw notFound();
    if (!answer.allowed) throw forbidden(answer.role, action);
    return answer;
  }
}
