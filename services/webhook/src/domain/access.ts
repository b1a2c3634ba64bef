import { AccessCheck, type Actor, type PermissionSource, requireAssigned } from "@docex/access";
import { NotFoundError } from "@docex/kit/errors";
import { isUuid } from "@docex/kit/ids";
import type { DocumentPort } from "./document-port.js";
import type { EntityScope, EntityType } from "./records.js";

export type { Actor } from "@docex/access";

/** The permissions of membership.proto's CheckPermission that this service asks about. */
type Permission = "document.read" | "queue.manage" | "signing_key.manage";

/** What a permission is checked against: an organization, narrowed to a queue (and a document) where there is one. */
export interface Scope {
  organizationId: string;
  queueId: string | null;
  /** A document-level scope; approvers see only the documents assigned to them. */
  documentId?: string | null;
}

const PERMISSION_WORDS: Record<Permission, string> = {
  "document.read": "reading",
  "queue.manage": "managing webhooks and validation links",
  "signing_key.manage": "managing the webhook signing key",
};

/**
 * Every call asks membership's CheckPermission. What the caller may not see answers 404, so ids of other
 * organizations (and of queues outside a member's queue_ids) do not leak; what they may see but not change
 * answers 403.
 */
export class AccessControl {
  private readonly check: AccessCheck;

  constructor(
    permissions: PermissionSource,
    private readonly entities: DocumentPort,
  ) {
    this.check = new AccessCheck(permissions);
  }

  /** The entity an id names, with its ancestors; 404 when it does not exist or the caller may not see it. */
  async visibleEntity(actor: Actor, entityType: EntityType, idOrHumanized: string): Promise<EntityScope> {
    const notFound = () => new NotFoundError(`No ${entityType} ${idOrHumanized}.`, `${entityType}_not_found`);
    // Documents are named by UUID only; anything else cannot name one.
    if (entityType === "document" && !isUuid(idOrHumanized)) throw notFound();
    const entity = await this.entities.resolve(entityType, idOrHumanized, { requestId: actor.requestId });
    if (!entity) throw notFound();
    await this.requireVisible(actor, { ...entity, documentId: entity.documentId }, notFound);
    return entity;
  }

  /** 404 (from `notFound`) unless the caller may read within the scope. */
  async requireVisible(actor: Actor, scope: Scope, notFound: () => NotFoundError): Promise<void> {
    const answer = await this.check.requireVisible(actor, scope, notFound);
    const documentId = scope.documentId;
    if (documentId)
      await requireAssigned(answer, actor, () => this.entities.approversOf(documentId, { requestId: actor.requestId }), notFound);
  }

  /** 403 unless the caller, already known to see the scope, may do `permission` there. */
  async require(actor: Actor, permission: Permission, scope: Scope, notFound: () => NotFoundError): Promise<void> {
    await this.check.require(actor, permission, scope, notFound, `${PERMISSION_WORDS[permission]} here`);
  }

  /** Whether the caller may do `permission` within the scope (no error either way). */
  allows(actor: Actor, permission: Permission, scope: Scope): Promise<boolean> {
    return this.check.allows(actor, permission, scope);
  }
}
