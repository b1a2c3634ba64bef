import { ForbiddenError, type NotFoundError } from "@docex/kit";
import type { MembershipAccess, Permission, PermissionAnswer } from "../clients/membership.js";
import type { StoredDocument } from "./records.js";

/** The user behind a request, as the domain needs them. */
export interface Actor {
  userId: string;
  requestId: string;
}

export interface Scope {
  organizationId: string;
  queueId?: string;
}

const PERMISSION_WORDS: Record<Permission, string> = {
  "document.read": "reading documents",
  "document.edit": "editing documents",
  "document.approve": "approving documents",
  "workspace.create": "creating workspaces",
  "queue.manage": "managing queues",
};

/**
 * Every read and write asks membership's CheckPermission. What the caller may not see answers 404
 * (so ids of other organizations and of queues outside a member's queue_ids do not leak); what they may
 * see but not do answers 403.
 */
export class AccessControl {
  constructor(private readonly membership: MembershipAccess) {}

  private ask(actor: Actor, permission: Permission, scope: Scope): Promise<PermissionAnswer> {
    return this.membership.checkPermission(
      { userId: actor.userId, organizationId: scope.organizationId, permission, ...(scope.queueId ? { queueId: scope.queueId } : {}) },
      { requestId: actor.requestId },
    );
  }

  /** The caller's read grant within `scope`, or `notFound` when they may not see it. */
  async requireReadable(actor: Actor, scope: Scope, notFound: () => NotFoundError): Promise<PermissionAnswer> {
    const answer = await this.ask(actor, "document.read", scope);
    if (!answer.isMember || !answer.allowed) throw notFound();
    return answer;
  }

  /**
   * The caller's read grant for one document. An approver sees only the documents they are assigned to; for
   * anyone else that is the queue's rule.
   */
  async requireDocumentReadable(actor: Actor, document: StoredDocument, notFound: () => NotFoundError): Promise<PermissionAnswer> {
    const answer = await this.requireReadable(actor, { organizationId: document.organizationId, queueId: document.queueId }, notFound);
    if (isApproverOnly(answer) && !document.approvers.includes(actor.userId)) throw notFound();
    return answer;
  }

  /** The caller's answer for `permission` in `scope`, whatever it is (for filtering rather than refusing). */
  grantOf(actor: Actor, permission: Permission, scope: Scope): Promise<PermissionAnswer> {
    return this.ask(actor, permission, scope);
  }

  async allows(actor: Actor, permission: Permission, scope: Scope): Promise<boolean> {
    const answer = await this.ask(actor, permission, scope);
    return answer.isMember && answer.allowed;
  }

  /** 403 unless the caller, already known to see the scope, may do `permission` in it. */
  async require(actor: Actor, permission: Permission, scope: Scope, notFound: () => NotFoundError): Promise<void> {
    const answer = await this.ask(actor, permission, scope);
    if (!answer.isMember) throw notFound();
    if (!answer.allowed) throw forbidden(permission, answer.role);
  }
}

export function forbidden(permission: Permission, role: string): ForbiddenError {
  return new ForbiddenError(`Your role${role ? ` (${role})` : ""} does not allow ${PERMISSION_WORDS[permission]} here.`);
}

/** Approvers read only what is assigned to them (API.md "Roles"). */
export function isApproverOnly(answer: PermissionAnswer): boolean {
  return answer.role === "approver";
}
