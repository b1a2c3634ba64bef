import { NotFoundError, type OutboxEvents } from "@docex/kit";
import type { WebhookStore } from "../store/webhook-store.js";
import type { AccessControl, Actor } from "./access.js";
import { linkChanged, webhookChanged } from "./configuration-events.js";
import type { EntityDirectory } from "./entity-directory.js";
import type { FailurePolicy, SignatureVerification, ValidationLink, ValidationType } from "./records.js";
import { requireSigningKeyFor } from "./signing-requirement.js";
import { requireAllowedTarget } from "./target-check.js";
import type { TargetPolicy } from "./target-policy.js";
import { maskUrl } from "./url-masking.js";

export interface ValidationLinkInput {
  url: string;
  type: ValidationType;
  /** Absent: `disabled` for a new link, unchanged for an existing one. */
  signatureVerification?: SignatureVerification;
  /** Absent: `allow` for a new link, unchanged for an existing one. */
  failurePolicy?: FailurePolicy;
}

/**
 * External validation links: one per queue and validation type (spec "External validation link endpoints").
 * Every change is published as `configuration.changed` in its own transaction (the outbox).
 */
export class ValidationLinks {
  constructor(
    private readonly store: WebhookStore,
    private readonly access: AccessControl,
    private readonly targets: TargetPolicy,
    private readonly events: OutboxEvents,
    private readonly entities: EntityDirectory,
  ) {}

  private async manageableQueue(actor: Actor, queueRef: string) {
    const queue = await this.access.visibleEntity(actor, "queue", queueRef);
    const notFound = () => new NotFoundError(`No queue ${queueRef}.`, "queue_not_found");
    await this.access.require(actor, "queue.manage", { organizationId: queue.organizationId, queueId: queue.entityId }, notFound);
    return queue;
  }

  /**
   * Creates or updates the queue's link of the type. A validation webhook of that type created through the deprecated
   * POST /webhooks on the queue itself is the queue's link already ("moved to their queues"): the save replaces it
   * (the webhook is deleted in the same transaction, its signing setting kept unless given) and answers "updated".
   */
  async save(actor: Actor, queueRef: string, input: ValidationLinkInput): Promise<{ link: ValidationLink; created: boolean }> {
    const queue = await this.manageableQueue(actor, queueRef);
    await requireAllowedTarget(this.targets, input.url);
    return this.store.transaction(async (tx) => {
      await this.store.lockValidationSlot(queue.entityId, input.type, tx);
      const before = await this.store.findValidationLink(queue.entityId, input.type, tx);
      const moved = before ? undefined : await this.store.validationWebhookOf("queue", queue.entityId, input.type, tx);
      // The state after the save: left out, signing keeps the existing link's (or moved webhook's) value.
      const signing = input.signatureVerification ?? before?.signatureVerification ?? moved?.signatureVerification;
      await requireSigningKeyFor(this.store, queue.organizationId, signing ?? "disabled", tx);
      // Before the commit: the queue's next edit asks for validation even before this change's event is consumed.
      await this.entities.expectValidator("queue", queue.entityId, input.type, actor);
      if (moved) {
        await this.store.deleteWebhook(moved.id, tx);
        await this.events.add(tx, webhookChanged(actor, "deleted", moved, null));
      }
      const saved = await this.store.upsertValidationLink(
        {
          queueId: queue.entityId,
          type: input.type,
          organizationId: queue.organizationId,
          workspaceId: queue.workspaceId ?? "",
          url: input.url,
          ...(signing ? { signatureVerification: signing } : {}),
          ...(input.failurePolicy ? { failurePolicy: input.failurePolicy } : {}),
        },
        tx,
      );
      await this.events.add(tx, linkChanged(actor, saved.created ? null : (before ?? null), saved.link));
      return { link: saved.link, created: saved.created && !moved };
    });
  }

  async list(actor: Actor, queueRef: string): Promise<ValidationLink[]> {
    const queue = await this.access.visibleEntity(actor, "queue", queueRef);
    const links = await this.store.validationLinksOf({
      queueId: queue.entityId,
      workspaceId: queue.workspaceId,
      organizationId: queue.organizationId,
    });
    // Whole for those who may manage the queue's links; masked for other readers (see url-masking.ts).
    if (
      links.length === 0 ||
      (await this.access.allows(actor, "queue.manage", { organizationId: queue.organizationId, queueId: queue.entityId }))
    )
      return links;
    return links.map((link) => ({ ...link, url: maskUrl(link.url) }));
  }

  async delete(actor: Actor, queueRef: string, type: ValidationType): Promise<void> {
    const queue = await this.manageableQueue(actor, queueRef);
    await this.store.transaction(async (tx) => {
      await this.store.lockValidationSlot(queue.entityId, type, tx);
      const deleted = await this.store.deleteValidationLink(queue.entityId, type, tx);
      if (deleted) {
        await this.events.add(tx, linkChanged(actor, deleted, null));
        return;
      }
      // A validation webhook of the queue itself is its link (listed as such): deleting the link deletes it. Those
      // of the workspace or organization speak for other queues too: DELETE /webhooks/{id} removes them.
      const moved = await this.store.validationWebhookOf("queue", queue.entityId, type, tx);
      if (!moved) throw new NotFoundError(`Queue ${queueRef} has no ${type} link.`, "validation_link_not_found");
      await this.store.deleteWebhook(moved.id, tx);
      await this.events.add(tx, webhookChanged(actor, "deleted", moved, null));
    });
  }
}
