import { AccessCheck, type Actor, isVisible, type PermissionSource } from "@docex/access";
import type { QueueRef } from "./records.js";

export type { Actor } from "@docex/access";

/** What the caller may do with a queue's registers. */
export type Grant = "allowed" | "forbidden" | "hidden";

/**
 * API.md "Roles": owners, supervisors and admins of the queue upload registers (`queue.manage`); whoever may
 * read the queue reads its registers (`document.read`). A queue the caller may not read is hidden: 404, so
 * that ids of other organizations, and of queues outside a member's queue_ids, do not leak.
 */
export class RegisterAccess {
  private readonly check: AccessCheck;

  constructor(permissions: PermissionSource) {
    this.check = new AccessCheck(permissions);
  }

  async readGrant(actor: Actor, queue: QueueRef): Promise<Grant> {
    return (await this.check.allows(actor, "document.read", queue)) ? "allowed" : "hidden";
  }

  async manageGrant(actor: Actor, queue: QueueRef): Promise<Grant> {
    const answer = await this.check.ask(actor, "queue.manage", queue);
    if (!answer.isMember) return "hidden";
    if (isVisible(answer)) return "allowed";
    return (await this.readGrant(actor, queue)) === "allowed" ? "forbidden" : "hidden";
  }
}
