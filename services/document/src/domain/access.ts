import {
  AccessCheck,
  type Actor,
  type CallContext,
  forbidden as forbiddenByRole,
  type PermissionAnswer,
  type PermissionSource,
  type QueueReach,
  requireAssigned,
  type Scope,
} from "@docex/access";
import { type ForbiddenError, NotFoundError } from "@docex/kit/errors";
import { type EntityRef, entityRefOf, isUuid } from "./humanized-id.js";
import type { OrganizationRef, Queue, StoredDocument } from "./records.js";
import type { FieldRule } from "./user-schema.js";

export type { Actor, Scope } from "@docex/access";

/** The permission names of membership.proto's CheckPermission that this service asks about. */
export type Permission = "document.read" | "document.edit" | "document.approve" | "workspace.create" | "queue.manage";

/** What the document service needs of membership besides permissions: which organizations a user is in, field rules. */
export interface MembershipDirectory {
  organizationsOf(userId: string, ctx?: CallContext): Promise<OrganizationRef[]>;
  /** An organization by UUID or humanized id, whoever asks; undefined when there is none. */
  organization(ref: string, ctx?: CallContext): Promise<OrganizationRef | undefined>;
  /** The caller's role and queues in the organization (cached, evicted by membership.changed); undefined for a non-member. */
  reachOf(userId: string, organizationId: string, ctx?: CallContext): Promise<QueueReach | undefined>;
  fieldRulesOf(query: { userId: string; organizationId: string; queueId: string }, ctx?: CallContext): Promise<FieldRule[]>;
}

export type MembershipAccess = PermissionSource & MembershipDirectory;

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
  private readonly check: AccessCheck;

  constructor(permissions: PermissionSource) {
    this.check = new AccessCheck(permissions);
  }

  /** The caller's read grant within `scope`, or `notFound` when they may not see it. */
  requireReadable(actor: Actor, scope: Scope, notFound: () => NotFoundError): Promise<PermissionAnswer> {
    return this.check.requireVisible(actor, scope, notFound);
  }

  /**
   * What `find` answers for `id` (an export, a run, a payment batch: anything of one queue) when `id` is a UUID, it
   * names something, and the caller may see its queue; `notFound` otherwise.
   */
  async readableById<T extends { organizationId: string; queueId: string }>(
    actor: Actor,
    id: string,
    find: (id: string) => Promise<T | undefined>,
    notFound: () => NotFoundError,
  ): Promise<T> {
    const found = isUuid(id) ? await find(id.toLowerCase()) : undefined;
    if (!found) throw notFound();
    await this.requireReadable(actor, { organizationId: found.organizationId, queueId: found.queueId }, notFound);
    return found;
  }

  /**
   * The caller's read grant for one document. An approver sees only the documents they are assigned to; for
   * anyone else that is the queue's rule.
   */
  async requireDocumentReadable(actor: Actor, document: StoredDocument, notFound: () => NotFoundError): Promise<PermissionAnswer> {
    const answer = await this.requireReadable(actor, { organizationId: document.organizationId, queueId: document.queueId }, notFound);
    await requireAssigned(answer, actor, () => document.approvers, notFound);
    return answer;
  }

  /** The caller's answer for `permission` in `scope`, whatever it is (for filtering rather than refusing). */
  grantOf(actor: Actor, permission: Permission, scope: Scope): Promise<PermissionAnswer> {
    return this.check.ask(actor, permission, scope);
  }

  allows(actor: Actor, permission: Permission, scope: Scope): Promise<boolean> {
    return this.check.allows(actor, permission, scope);
  }

  /** 403 unless the caller, already known to see the scope, may do `permission` in it. */
  async require(actor: Actor, permission: Permission, scope: Scope, notFound: () => NotFoundError): Promise<void> {
    await this.check.require(actor, permission, scope, notFound, `${PERMISSION_WORDS[permission]} here`);
  }
}

export function forbidden(permission: Permission, role: string): ForbiddenError {
  return forbiddenByRole(role, `${PERMISSION_WORDS[permission]} here`);
}

/** 404 `queue_not_found` for a queue named by `ref`. */
export const queueNotFound = (ref: string) => () => new NotFoundError(`Queue ${ref} does not exist.`, "queue_not_found");

/**
 * The queue `ref` names (UUID or humanized id) when the caller may see it, with its scope and the caller's read grant
 * there; 404 `queue_not_found` when there is none or the caller may not see it (`notFound`, for what they ask next).
 */
export async function readableQueue(
  deps: { queues: { findQueue(ref: EntityRef): Promise<Queue | undefined> }; access: AccessControl },
  actor: Actor,
  ref: string,
) {
  const notFound = queueNotFound(ref);
  const queue = await deps.queues.findQueue(entityRefOf(ref));
  if (!queue) throw notFound();
  const scope = { organizationId: queue.organizationId, queueId: queue.id };
  const grant = await deps.access.requireReadable(actor, scope, notFound);
  return { queue, scope, grant, notFound };
}
