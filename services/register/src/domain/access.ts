import type { QueueRef } from "./records.js";

/** The user behind a request, as the domain needs them. */
export interface Actor {
  userId: string;
  requestId: string;
}

/** The permission names of membership.proto's CheckPermission that this service asks about. */
export type Permission = "document.read" | "queue.manage";

export interface PermissionAnswer {
  allowed: boolean;
  /** False for a user without a (non-deactivated) membership: the resource answers 404, not 403. */
  isMember: boolean;
  role: string;
}

export interface PermissionQuery {
  userId: string;
  organizationId: string;
  permission: Permission;
  queueId: string;
}

/** Where answers come from: membership over gRPC, behind a short cache. */
export interface PermissionSource {
  checkPermission(query: PermissionQuery, ctx?: { requestId?: string }): Promise<PermissionAnswer>;
}

/** What the caller may do with a queue's registers. */
export type Grant = "allowed" | "forbidden" | "hidden";

/**
 * API.md "Roles": owners, supervisors and admins of the queue upload registers (`queue.manage`); whoever may
 * read the queue reads its registers (`document.read`). A queue the caller may not read is hidden: 404, so
 * that ids of other organizations, and of queues outside a member's queue_ids, do not leak.
 */
export class RegisterAccess {
  constructor(private readonly permissions: PermissionSource) {}

  private ask(actor: Actor, permission: Permission, queue: QueueRef): Promise<PermissionAnswer> {
    return this.permissions.checkPermission(
      { userId: actor.userId, organizationId: queue.organizationId, permission, queueId: queue.queueId },
      { requestId: actor.requestId },
    );
  }

  async readGrant(actor: Actor, queue: QueueRef): Promise<Grant> {
    const answer = await this.ask(actor, "document.read", queue);
    return answer.isMember && answer.allowed ? "allowed" : "hidden";
  }

  async manageGrant(actor: Actor, queue: QueueRef): Promise<Grant> {
    const answer = await this.ask(actor, "queue.manage", queue);
    if (!answer.isMember) return "hidden";
    if (answer.allowed) return "allowed";
    return (await this.readGrant(actor, queue)) === "allowed" ? "forbidden" : "hidden";
  }
}
