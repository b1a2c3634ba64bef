import type { UnitOfWork } from "@docex/kit/db";
import type { Logger } from "@docex/kit/logger";
import type { DocumentStore } from "../store/document-store.js";
import type { HierarchyStore } from "../store/hierarchy-store.js";
import type { ValidationLinkStore } from "../store/validation-link-store.js";
import type { ValidatorStore } from "../store/validator-store.js";
import type { EntityType, ValidationType } from "./validation.js";

/** The webhook service's part in a replacement: it deletes the webhook (idempotent) and publishes its deletion. */
export interface ReplacedWebhooks {
  deleteValidationWebhook(organizationId: string, webhookId: string, actorUserId: string | null, requestId?: string): Promise<void>;
}

/** A validation webhook of the deprecated API as the webhook service committed it (RecordValidationWebhook, or its event). */
export interface ValidationWebhookChange {
  webhookId: string;
  organizationId: string;
  entityType: EntityType;
  entityId: string;
  type: ValidationType;
  /** False: deleted. */
  present: boolean;
  /** When the webhook service committed it: an older state than the one kept changes nothing. */
  changedAt: Date;
  actorUserId: string | null;
  requestId?: string;
}

/**
 * Which validation webhook of the deprecated API applies where (issue 41): the webhook service keeps the receivers
 * (`GET/PATCH/DELETE /webhooks/{id}` still manage them), this service keeps where each one applies and picks the one
 * that validates a document, as it does for links. The webhook service tells it of every change after committing it;
 * its `configuration.changed` is the backstop (the same change twice, or an older one, changes nothing). A queue's
 * own webhook of a type whose link the queue has is replaced by the link: kept here as removed, and the webhook
 * service is told to delete it, after this commit.
 */
export class ValidationWebhooks {
  constructor(
    private readonly deps: {
      sql: UnitOfWork;
      store: ValidatorStore;
      links: ValidationLinkStore;
      hierarchy: HierarchyStore;
      documents: DocumentStore;
      webhooks: ReplacedWebhooks;
      logger: Logger;
    },
  ) {}

  async record(change: ValidationWebhookChange): Promise<void> {
    const place = await this.placeOf(change.entityType, change.entityId, change.organizationId);
    // An entity that is gone (or not of that organization): nothing it holds validates anything.
    if (!place) return;
    const replaced = await this.deps.sql.transaction(async (tx) => {
      let present = change.present;
      let changedAt = change.changedAt;
      let replaces = false;
      if (present && change.entityType === "queue") {
        // Takes turns with the link's saves: one of the two sees the other.
        const link = await this.deps.links.lock(tx, change.entityId, change.type);
        if (link) {
          present = false;
          changedAt = new Date(Math.max(Date.now(), change.changedAt.getTime() + 1));
          replaces = true;
        }
      }
      const recorded = await this.deps.store.record(
        { ...change, queueId: place.queueId, workspaceId: place.workspaceId, present, changedAt },
        tx,
      );
      tx.afterCommit(() => this.forget(change.entityType, place.queueId));
      return recorded && replaces;
    });
    if (replaced) await this.tellReplaced(change.organizationId, change.webhookId, change.actorUserId, change.requestId);
  }

  /** After the commit that replaced it: the webhook service deletes the webhook (idempotent); its failure is logged. */
  async tellReplaced(organizationId: string, webhookId: string, actorUserId: string | null, requestId?: string): Promise<void> {
    try {
      await this.deps.webhooks.deleteValidationWebhook(organizationId, webhookId, actorUserId, requestId);
    } catch (error) {
      // The link's configuration.changed makes the webhook service delete it all the same (its consumer).
      this.deps.logger.warn(
        { err: error, webhook_id: webhookId },
        "could not tell the webhook service to delete a replaced validation webhook",
      );
    }
  }

  /** A workspace's or organization's webhook applies to many queues: their cached validators are all forgotten. */
  private forget(entityType: EntityType, queueId: string | null): void {
    this.deps.hierarchy.forgetQueue(entityType === "document" || entityType === "queue" ? (queueId ?? undefined) : undefined);
  }

  private async placeOf(
    entityType: EntityType,
    entityId: string,
    organizationId: string,
  ): Promise<{ queueId: string | null; workspaceId: string | null } | undefined> {
    switch (entityType) {
      case "document": {
        const document = await this.deps.documents.find(entityId);
        if (document?.organizationId !== organizationId) return undefined;
        return { queueId: document.queueId, workspaceId: document.workspaceId };
      }
      case "queue": {
        const queue = await this.deps.hierarchy.findQueue({ id: entityId });
        if (queue?.organizationId !== organizationId) return undefined;
        return { queueId: queue.id, workspaceId: queue.workspaceId };
      }
      case "workspace": {
        const workspace = await this.deps.hierarchy.findWorkspace({ id: entityId });
        if (workspace?.organizationId !== organizationId) return undefined;
        return { queueId: null, workspaceId: workspace.id };
      }
      case "organization":
        return entityId === organizationId ? { queueId: null, workspaceId: null } : undefined;
    }
  }
}
