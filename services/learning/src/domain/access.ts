import { AccessCheck, type PermissionSource, requireAssigned } from "@docex/access";
import type { NotFoundError } from "@docex/kit/errors";
import type { Actor } from "./records.js";

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
  private readonly check: AccessCheck;

  constructor(permissions: PermissionSource) {
    this.check = new AccessCheck(permissions);
  }

  async requireEditable(actor: Actor, scope: EditScope, notFound: () => NotFoundError): Promise<void> {
    const read = await this.check.requireVisible(actor, scope, notFound);
    const approvers = scope.approvers;
    if (approvers) await requireAssigned(read, actor, () => approvers, notFound);
    await this.check.require(actor, "document.edit", scope, notFound, "learning and relearning here");
  }
}
