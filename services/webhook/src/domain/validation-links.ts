import { NotFoundError } from "@docex/kit";
import type { WebhookStore } from "../store/webhook-store.js";
import type { AccessControl, Actor } from "./access.js";
import type { SignatureVerification, ValidationLink, ValidationType } from "./records.js";
import { requireAllowedTarget } from "./target-check.js";
import type { TargetPolicy } from "./target-policy.js";

export interface ValidationLinkInput {
  url: string;
  type: ValidationType;
  /** Absent: `disabled` for a new link, unchanged for an existing one. */
  signatureVerification?: SignatureVerification;
}

/** External validation links: one per queue and validation type (spec "External validation link endpoints"). */
export class ValidationLinks {
  constructor(
    private readonly store: WebhookStore,
    private readonly access: AccessControl,
    private readonly targets: TargetPolicy,
  ) {}

  private async manageableQueue(actor: Actor, queueRef: string) {
    const queue = await this.access.visibleEntity(actor, "queue", queueRef);
    const notFound = () => new NotFoundError(`No queue ${queueRef}.`, "queue_not_found");
    await this.access.require(actor, "queue.manage", { organizationId: queue.organizationId, queueId: queue.entityId }, notFound);
    return queue;
  }

  async save(actor: Actor, queueRef: string, input: ValidationLinkInput): Promise<{ link: ValidationLink; created: boolean }> {
    const queue = await this.manageableQueue(actor, queueRef);
    await requireAllowedTarget(this.targets, input.url);
    return this.store.upsertValidationLink({
      queueId: queue.entityId,
      type: input.type,
      organizationId: queue.organizationId,
      workspaceId: queue.workspaceId ?? "",
      url: input.url,
      ...(input.signatureVerification ? { signatureVerification: input.signatureVerification } : {}),
    });
  }

  async list(actor: Actor, queueRef: string): Promise<ValidationLink[]> {
    const queue = await this.access.visibleEntity(actor, "queue", queueRef);
    return this.store.validationLinksOf(queue.entityId);
  }

  async delete(actor: Actor, queueRef: string, type: ValidationType): Promise<void> {
    const queue = await this.manageableQueue(actor, queueRef);
    if (!(await this.store.deleteValidationLink(queue.entityId, type))) {
      throw new NotFoundError(`Queue ${queueRef} has no ${type} link.`, "validation_link_not_found");
    }
  }
}
