import { ForbiddenError, type NotFoundError } from "@docex/kit";
import type { Actor } from "./records.js";

/** The permissions of membership.proto's CheckPermission that learning asks about. */
export type Permission = "document.read" | "document.edit";

export interface PermissionAnswer {
  allowed: boolean;
  /** False for a user without a (non-deactivated) membership: the resource answers 404, not 403. */
  isMember: boolean;
  role: string;
}

/** Where permission answers come from: membership's CheckPermission, behind a cache. */
export interface PermissionSource {
  checkPermission(
    query: { userId: string; organizationId: string; permission: Permission; queueId: string },
    ctx?: { requestId?: string },
  ): Promise<PermissionAnswer>;
}

export interface EditScope {
  organizationId: string;
  queueId: string;
  /** The document's approvers, when the scope is one document: an approver sees only what is assigned to them. */
  approvers?: readonly string[];
}

/**
 * Learn and relearn change what the queue does with its documents, so they need what editing a document
 * needs (API.md "Roles": owner, supervisor, admin and editor, within their queues). What the caller may not
 * see answers 404, so ids of other organizations do not leak; what they see but may not change answers 403.
 */
export class AccessControl {
  constructor(private readonly permissions: PermissionSource) {}

  private ask(actor: Actor, permission: Permission, scope: EditScope): Promise<PermissionAnswer> {
    return this.permissions.checkPermission(
      { userId: actor.userId, organizationId: scope.organizationId, permission, queueId: scope.queueId },
      { requestId: actor.requestId },
    );
  }

  async requireEditable(actor: Actor, scope: EditScope, notFound: () => NotFoundError): Promise<void> {
    const read = await this.ask(actor, "document.read", scope);
    if (!read.isMember || !read.allowed) throw notFound();
    if (read.role === "approver" && scope.approvers && !scope.approvers.includes(actor.userId)) throw notFound();
    const edit = await this.ask(actor, "document.edit", scope);
    if (!edit.isMember) throw notFound();
    if (!edit.allowed)
      throw new ForbiddenError(`Your role${edit.role ? ` (${edit.role})` : ""} does not allow learning and relearning here.`);
  }
}
