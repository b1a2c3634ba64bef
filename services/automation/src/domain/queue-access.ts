import { AccessCheck, type Actor, type PermissionSource } from "@docex/access";
import { NotFoundError } from "@docex/kit/errors";
import type { DocumentPort } from "./document-port.js";
import type { QueueRecord } from "./records.js";

export type { Actor } from "@docex/access";

/**
 * Finds the queue a path names (UUID or humanized id, through the document service) and asks membership
 * whether the caller may see it (else 404, so ids of other organizations do not leak) and, for changes,
 * whether they may manage it (`queue.manage`: owner, supervisor, admin of that queue; else 403).
 */
export class QueueAccess {
  private readonly check: AccessCheck;

  constructor(
    private readonly documents: DocumentPort,
    membership: PermissionSource,
  ) {
    this.check = new AccessCheck(membership);
  }

  async readable(actor: Actor, ref: string): Promise<QueueRecord> {
    const queue = await this.documents.queue(ref, { requestId: actor.requestId });
    await this.check.requireVisible(actor, scopeOf(queue), notFound(ref));
    return queue;
  }

  async manageable(actor: Actor, ref: string): Promise<QueueRecord> {
    const queue = await this.readable(actor, ref);
    await this.check.require(actor, "queue.manage", scopeOf(queue), notFound(ref), "managing this queue's automation");
    return queue;
  }
}

const scopeOf = (queue: QueueRecord) => ({ organizationId: queue.organizationId, queueId: queue.id });

const notFound = (ref: string) => () => new NotFoundError(`Queue ${ref} does not exist.`, "queue_not_found");
