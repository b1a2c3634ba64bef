import { ForbiddenError, NotFoundError } from "@docex/kit";
import type { DocumentGateway } from "../clients/document.js";
import type { MembershipAccess } from "../clients/membership.js";
import type { QueueRecord } from "./records.js";

/** The user behind a request, as the domain needs them. */
export interface Actor {
  userId: string;
  requestId: string;
}

/**
 * Finds the queue a path names (UUID or humanized id, through the document service) and asks membership
 * whether the caller may see it (else 404, so ids of other organizations do not leak) and, for changes,
 * whether they may manage it (`queue.manage`: owner, supervisor, admin of that queue; else 403).
 */
export class QueueAccess {
  constructor(
    private readonly documents: DocumentGateway,
    private readonly membership: MembershipAccess,
  ) {}

  async readable(actor: Actor, ref: string): Promise<QueueRecord> {
    const queue = await this.documents.queue(ref, { requestId: actor.requestId });
    const answer = await this.membership.checkPermission(
      { userId: actor.userId, organizationId: queue.organizationId, permission: "document.read", queueId: queue.id },
      { requestId: actor.requestId },
    );
    if (!answer.isMember || !answer.allowed) throw new NotFoundError(`Queue ${ref} does not exist.`, "queue_not_found");
    return queue;
  }

  async manageable(actor: Actor, ref: string): Promise<QueueRecord> {
    const queue = await this.readable(actor, ref);
    const answer = await this.membership.checkPermission(
      { userId: actor.userId, organizationId: queue.organizationId, permission: "queue.manage", queueId: queue.id },
      { requestId: actor.requestId },
    );
    if (!answer.isMember) throw new NotFoundError(`Queue ${ref} does not exist.`, "queue_not_found");
    if (!answer.allowed)
      throw new ForbiddenError(`Your role${answer.role ? ` (${answer.role})` : ""} does not allow managing this queue's automation.`);
    return queue;
  }
}
