import { randomUUID } from "node:crypto";
import type { OutboxEvents } from "@docex/kit/bus";
import { isUniqueViolation, type Tx } from "@docex/kit/db";
import { ConflictError, NotFoundError } from "@docex/kit/errors";
import type { Logger } from "@docex/kit/logger";
import type { WebhookStore } from "../store/webhook-store.js";
import type { AccessControl, Actor, Scope } from "./access.js";
import { webhookChanged } from "./configuration-events.js";
import type { DocumentPort } from "./document-port.js";
import {
  type EntityType,
  isValidationType,
  type Page,
  type Paged,
  type SignatureVerification,
  type ValidationType,
  type Webhook,
  type WebhookType,
} from "./records.js";
import { requireSigningKeyFor } from "./signing-requirement.js";
import { requireAllowedTarget } from "./target-check.js";
import type { TargetPolicy } from "./target-policy.js";
import { maskUrl } from "./url-masking.js";

export interface NewWebhook {
  url: string;
  entityType: EntityType;
  entityId: string;
  type: WebhookType;
  signatureVerification: SignatureVerification;
  destinationId: string | null;
}

export interface WebhookPatch {
  url?: string;
  signatureVerification?: SignatureVerification;
  destinationId?: string | null;
}

export function scopeOf(webhook: Webhook): Scope {
  return {
    organizationId: webhook.organizationId,
    queueId: webhook.queueId,
    documentId: webhook.entityType === "document" ? webhook.entityId : null,
  };
}

const webhookNotFound = (id: string) => () => new NotFoundError(`No webhook ${id}.`, "webhook_not_found");

const duplicate = () =>
  new ConflictError("This entity already has a webhook of this type with this url.", "webhook_exists", [
    { path: "url", message: "already used by another webhook of this entity and type" },
  ]);

/**
 * The webhook registry: who may see and change which webhook, and the rules of its fields. Every change is
 * published as `configuration.changed` in its own transaction (the outbox).
 */
export class Webhooks {
  constructor(
    private readonly store: WebhookStore,
    private readonly access: AccessControl,
    private readonly targets: TargetPolicy,
    private readonly events: OutboxEvents,
    private readonly entities: DocumentPort,
    /** Webhooks an organization may have (WEBHOOK_MAX_PER_ORGANIZATION). */
    private readonly maxPerOrganization: number,
    private readonly logger: Logger,
  ) {}

  /** The entity must exist and be visible to the caller (else 404), who must manage its queues (else 403). */
  async create(actor: Actor, input: NewWebhook): Promise<Webhook> {
    const entity = await this.access.visibleEntity(actor, input.entityType, input.entityId);
    const notFound = () => new NotFoundError(`No ${input.entityType} ${input.entityId}.`, `${input.entityType}_not_found`);
    await this.access.require(actor, "queue.manage", { organizationId: entity.organizationId, queueId: entity.queueId }, notFound);
    await requireSigningKeyFor(this.store, entity.organizationId, input.signatureVerification);
    await requireAllowedTarget(this.targets, input.url);
    if (isValidationType(input.type) && entity.entityType === "queue")
      await this.requireNoLink(entity.organizationId, entity.entityId, input.type, actor);
    let created: { webhook: Webhook; changedAt: string };
    try {
      created = await this.store.transaction(async (tx) => {
        await this.requireRoomInOrganization(entity.organizationId, tx);
        if (isValidationType(input.type)) await this.requireFreeValidationSlot(entity.entityType, entity.entityId, input.type, tx);
        const webhook = await this.store.insertWebhook(
          {
            id: randomUUID(),
            url: input.url,
            entityType: entity.entityType,
            entityId: entity.entityId,
            organizationId: entity.organizationId,
            workspaceId: entity.workspaceId,
            queueId: entity.queueId,
            type: input.type,
            signatureVerification: input.signatureVerification,
            destinationId: input.destinationId,
            // API.md: validation types live on the queue now (external validation links); creating them here is deprecated.
            deprecated: isValidationType(input.type),
          },
          tx,
        );
        const event = webhookChanged(actor, "created", null, webhook);
        await this.events.add(tx, event);
        return { webhook, changedAt: event.occurred_at };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicate();
      throw error;
    }
    // After the commit, before answering: the entity's next edit is validated (the document service picks validators).
    await this.tellDocument(created.webhook, true, created.changedAt, actor);
    return created.webhook;
  }

  /**
   * Which validation webhook applies to a document is the document service's configuration: it is told of a
   * validation webhook's creation and deletion after the commit (never inside the transaction). A failure is logged:
   * the change's configuration.changed, which the document service consumes, tells it all the same, a moment later.
   */
  private async tellDocument(webhook: Webhook, present: boolean, changedAt: string, actor: Actor | null): Promise<void> {
    if (!isValidationType(webhook.type)) return;
    try {
      await this.entities.recordValidationWebhook(webhook, present, changedAt, actor);
    } catch (error) {
      this.logger.warn(
        { err: error, webhook_id: webhook.id },
        "could not tell the document service of a validation webhook; its event will",
      );
    }
  }

  /**
   * A queue's validation webhook of a type whose external validation link the queue has is 409 (one validator per
   * queue and type). The links are the document service's: it is asked (a read). A link saved at the same moment
   * replaces the webhook there once it hears of it (RecordValidationWebhook), so one validator remains.
   */
  private async requireNoLink(organizationId: string, queueId: string, type: ValidationType, actor: Actor): Promise<void> {
    if (!(await this.entities.hasValidationLink(organizationId, queueId, type, { requestId: actor.requestId }))) return;
    throw new ConflictError(
      `This queue already has a ${type} external validation link; there is one validator per queue and type. ` +
        `Change it with POST /api/v2/queues/${queueId}/external-validation-links.`,
      "validation_link_exists",
      [{ path: "type", message: `this queue already has a ${type} validator` }],
    );
  }

  /**
   * An organization has at most `maxPerOrganization` webhooks: each one is a stream of deliveries, and an unbounded
   * number lets one tenant multiply its load on the delivery slots everyone shares. Past it, 409 `webhook_limit_reached`.
   */
  private async requireRoomInOrganization(organizationId: string, tx: Tx): Promise<void> {
    const count = await this.store.lockAndCountWebhooksOf(organizationId, tx);
    if (count < this.maxPerOrganization) return;
    throw new ConflictError(
      `This organization has ${count} webhooks, the most it may have (${this.maxPerOrganization}). Delete one it no longer needs before creating another.`,
      "webhook_limit_reached",
      [{ path: "url", message: `the organization already has ${count} of at most ${this.maxPerOrganization} webhooks` }],
      { limit: this.maxPerOrganization },
    );
  }

  /**
   * One validator per queue and type (spec "Limits"; the queue's validation webhooks are its links, spec "Versioning"
   * 2): a validation webhook on an entity that already has one of that type, or on a queue that has that link, is 409
   * `validation_link_exists`. The slot's advisory lock makes concurrent creations (and link saves) take turns.
   */
  private async requireFreeValidationSlot(entityType: EntityType, entityId: string, type: ValidationType, tx: Tx): Promise<void> {
    await this.store.lockValidationSlot(entityId, type, tx);
    const existing = await this.store.validationWebhookOf(entityType, entityId, type, tx);
    if (existing) {
      throw new ConflictError(
        `This ${entityType} already has a ${type} webhook (${existing.id}); there is one validator per ${entityType} and type. ` +
          `Change it with PATCH /api/v2/webhooks/${existing.id}${entityType === "queue" ? `, or POST /api/v2/queues/${entityId}/external-validation-links` : ""}.`,
        "validation_link_exists",
        [{ path: "type", message: `this ${entityType} already has a ${type} validator` }],
      );
    }
  }

  /** A webhook the caller may see; 404 otherwise. */
  async visible(actor: Actor, id: string): Promise<Webhook> {
    const notFound = webhookNotFound(id);
    const webhook = await this.store.findWebhook(id);
    if (!webhook) throw notFound();
    await this.access.requireVisible(actor, scopeOf(webhook), notFound);
    return webhook;
  }

  /**
   * A webhook as the caller may read it (404 when they may not see it): whole for those who may manage it (owners,
   * supervisors, admins of its queue), its URL masked for the others (see url-masking.ts).
   */
  async read(actor: Actor, id: string): Promise<Webhook> {
    const webhook = await this.visible(actor, id);
    return (await this.access.allows(actor, "queue.manage", scopeOf(webhook))) ? webhook : { ...webhook, url: maskUrl(webhook.url) };
  }

  /** A webhook the caller may see (else 404) and manage (else 403). */
  async manageable(actor: Actor, id: string): Promise<Webhook> {
    const webhook = await this.visible(actor, id);
    await this.access.require(actor, "queue.manage", scopeOf(webhook), webhookNotFound(id));
    return webhook;
  }

  /** Any PATCH of a disabled webhook enables it again (the integrator has looked at it) and starts its failure run afresh. */
  async update(actor: Actor, id: string, patch: WebhookPatch): Promise<Webhook> {
    const current = await this.manageable(actor, id);
    // The state after the change: a PATCH that leaves signing on in an organization without a key is refused too.
    await requireSigningKeyFor(this.store, current.organizationId, patch.signatureVerification ?? current.signatureVerification);
    if (patch.url !== undefined) await requireAllowedTarget(this.targets, patch.url);
    try {
      return await this.store.transaction(async (tx) => {
        const before = await this.store.findWebhook(id, tx);
        if (!before) throw webhookNotFound(id)();
        const enable = before.status === "disabled";
        const updated = await this.store.updateWebhook(id, { ...patch, enable }, tx);
        if (!updated) throw webhookNotFound(id)();
        await this.events.add(tx, webhookChanged(actor, enable ? "enabled" : "updated", before, updated));
        return updated;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicate();
      throw error;
    }
  }

  async delete(actor: Actor, id: string): Promise<void> {
    await this.manageable(actor, id);
    const deleted = await this.store.transaction(async (tx) => {
      // Not read under a lock first: a sender recording an outcome holds a delivery and then waits for the webhook,
      // so holding the webhook while waiting for its deliveries would deadlock with it (and answer 500).
      const before = await this.store.deleteWebhook(id, tx);
      if (!before) throw webhookNotFound(id)();
      const event = webhookChanged(actor, "deleted", before, null);
      await this.events.add(tx, event);
      return { webhook: before, changedAt: event.occurred_at };
    });
    await this.tellDocument(deleted.webhook, false, deleted.changedAt, actor);
  }

  /**
   * DeleteValidationWebhook: the document service replaced this validation webhook by the queue's link (saved or
   * deleted there). Idempotent: one that is gone, of another organization or not of a validation type is left alone.
   */
  async deleteReplaced(organizationId: string, id: string, actor: Actor | null): Promise<boolean> {
    const webhook = await this.store.findWebhook(id);
    if (!webhook || webhook.organizationId !== organizationId || !isValidationType(webhook.type)) return false;
    return this.store.transaction(async (tx) => {
      const before = await this.store.deleteWebhook(id, tx);
      if (!before) return false;
      await this.events.add(tx, webhookChanged(actor, "deleted", before, null));
      return true;
    });
  }

  /**
   * The backstop of DeleteValidationWebhook: the queue's link of the type changed (`validation_link` of the document
   * service, at `changedAt`), so the queue's own validation webhooks of that type made before it are replaced.
   */
  async replacedByLink(organizationId: string, queueId: string, type: ValidationType, changedAt: Date): Promise<void> {
    const own = await this.store.validationWebhookOf("queue", queueId, type);
    if (own && own.createdAt <= changedAt) await this.deleteReplaced(organizationId, own.id, null);
  }

  /**
   * The webhooks attached to the entity itself (not those of its ancestors), oldest first; all of them without `page`.
   * URLs are masked unless the caller may manage the entity's webhooks (as in `read`).
   */
  async of(actor: Actor, entityType: EntityType, idOrHumanized: string, page?: Page): Promise<Paged<Webhook>> {
    const entity = await this.access.visibleEntity(actor, entityType, idOrHumanized);
    const listed = await this.store.webhooksOf(entityType, entity.entityId, page);
    // Every webhook of the list shares the entity's scope: one answer says whether its URLs are shown whole.
    const scope = { organizationId: entity.organizationId, queueId: entity.queueId };
    if (listed.items.length === 0 || (await this.access.allows(actor, "queue.manage", scope))) return listed;
    return { ...listed, items: listed.items.map((webhook) => ({ ...webhook, url: maskUrl(webhook.url) })) };
  }
}
