import type { DocexEvent } from "@docex/events";
import type { OutboxEvents } from "@docex/kit/bus";
import type { Tx, UnitOfWork } from "@docex/kit/db";
import { NotFoundError } from "@docex/kit/errors";
import type { CallContext } from "@docex/kit/grpc";
import type { HierarchyStore } from "../store/hierarchy-store.js";
import type { StoredValidationLink, ValidationLinkStore } from "../store/validation-link-store.js";
import type { ValidatorStore } from "../store/validator-store.js";
import type { AccessControl, Actor } from "./access.js";
import { configurationChanged } from "./document-events.js";
import { entityRefOf } from "./humanized-id.js";
import type { Queue } from "./records.js";
import type { FailurePolicy, ValidationType } from "./validation.js";
import type { ValidationWebhooks } from "./validation-webhooks.js";

export const SIGNATURE_VERIFICATIONS = ["enabled", "disabled"] as const;
export type SignatureVerification = (typeof SIGNATURE_VERIFICATIONS)[number];

export interface TargetDescription {
  url: string;
  maskedUrl: string;
  signatureVerification: SignatureVerification;
  /** When the target (or the deprecated validation webhook of that id) was made, and last changed. */
  createdAt: Date;
  updatedAt: Date;
}

/** The webhook service's registry of receivers (src/clients/validation-targets.ts). */
export interface ValidationTargets {
  /** Checks the receiver (SSRF rules: 400 url_not_allowed; signing needs the key: 409 signing_key_missing) and registers it. */
  register(
    target: { organizationId: string; url: string; signatureVerification: SignatureVerification },
    ctx: CallContext,
  ): Promise<{ targetId: string }>;
  describe(organizationId: string, targetIds: string[], ctx: CallContext): Promise<Map<string, TargetDescription>>;
}

/** A link as the API shows it (API.md "External validation link" plus failure_policy and webhook_id). */
export interface ValidationLinkView {
  queueId: string;
  type: ValidationType;
  url: string;
  signatureVerification: SignatureVerification;
  failurePolicy: FailurePolicy;
  createdAt: Date;
  updatedAt: Date;
  webhookId: string | null;
}

export interface ValidationLinkInput {
  url: string;
  type: ValidationType;
  /** Absent: `disabled` for a new link, unchanged for an existing one. */
  signatureVerification?: SignatureVerification;
  /** Absent: `allow` for a new link, unchanged for an existing one. */
  failurePolicy?: FailurePolicy;
}

/**
 * The queues' external validation links: which validator applies to a queue, and its failure policy, is the queue's
 * configuration, kept here (issue 41). The receiver is a target of the webhook service, registered before the link is
 * saved (a target that is never committed here is never called) and named by its id; the edit's hot path then calls
 * `Validate(target_id)` without a lookup. Every change is published as `configuration.changed` (resource
 * `validation_link`, as the webhook service published it) with the link, in the transaction that saves it.
 */
export class ValidationLinks {
  constructor(
    private readonly deps: {
      sql: UnitOfWork;
      links: ValidationLinkStore;
      hierarchy: HierarchyStore;
      access: AccessControl;
      targets: ValidationTargets;
      validators: Pick<ValidatorStore, "ofQueue" | "ownWebhookOfQueue" | "record">;
      replaced: Pick<ValidationWebhooks, "tellReplaced">;
      events: OutboxEvents;
    },
  ) {}

  private async visibleQueue(actor: Actor, ref: string) {
    const notFound = () => new NotFoundError(`No queue ${ref}.`, "queue_not_found");
    const queue = await this.deps.hierarchy.findQueue(entityRefOf(ref));
    if (!queue) throw notFound();
    await this.deps.access.requireReadable(actor, { organizationId: queue.organizationId, queueId: queue.id }, notFound);
    return { queue, notFound };
  }

  private async manageableQueue(actor: Actor, ref: string) {
    const { queue, notFound } = await this.visibleQueue(actor, ref);
    await this.deps.access.require(actor, "queue.manage", { organizationId: queue.organizationId, queueId: queue.id }, notFound);
    return queue;
  }

  async save(actor: Actor, ref: string, input: ValidationLinkInput): Promise<{ link: ValidationLinkView; created: boolean }> {
    const queue = await this.manageableQueue(actor, ref);
    const ctx = { requestId: actor.requestId };
    const { existing, own, described } = await this.currentOf(queue, input.type, ctx);
    const before = existing ? described.get(existing.targetId) : undefined;
    const signatureVerification = input.signatureVerification ?? before?.signatureVerification ?? "disabled";
    // A target never changes: a new one for every save, registered before the transaction (never committed: never called).
    const { targetId } = await this.deps.targets.register(
      { organizationId: queue.organizationId, url: input.url, signatureVerification },
      ctx,
    );
    const saved = await this.deps.sql.transaction(async (tx) => {
      const previous = await this.deps.links.lock(tx, queue.id, input.type);
      // The queue's own validation webhook of the deprecated API of that type was its link: this save replaces it.
      const replaced = previous ? undefined : await this.replaceOwnWebhook(tx, queue, input.type);
      const link = await this.deps.links.save(tx, {
        queueId: queue.id,
        type: input.type,
        organizationId: queue.organizationId,
        targetId,
        failurePolicy: input.failurePolicy ?? previous?.failurePolicy ?? "allow",
      });
      const current = { url: input.url, signatureVerification };
      const previousState = previous
        ? linkState(previous, previous.targetId === existing?.targetId ? before : undefined)
        : replaced
          ? webhookState(input.type, replaced.webhookId === own?.webhookId ? described.get(replaced.webhookId) : undefined)
          : null;
      await this.deps.events.add(tx, linkChanged(actor, link, previousState, linkState(link, current)));
      this.deps.hierarchy.forgetQueue(queue.id);
      tx.afterCommit(() => this.deps.hierarchy.forgetQueue(queue.id));
      return { link: viewOf(link, current), created: !previous && !replaced, replaced };
    });
    if (saved.replaced)
      await this.deps.replaced.tellReplaced(queue.organizationId, saved.replaced.webhookId, actor.userId, actor.requestId);
    return { link: saved.link, created: saved.created };
  }

  /** The queue's link of the type and its own validation webhook, with their receivers (read before any lock is taken). */
  private async currentOf(queue: Queue, type: ValidationType, ctx: CallContext) {
    const existing = (await this.deps.links.ofQueue(queue.id)).find((link) => link.type === type);
    const own = (await this.deps.validators.ofQueue(queue)).webhooks.find(
      (webhook) => webhook.type === type && webhook.entityType === "queue" && webhook.entityId === queue.id,
    );
    const ids = [existing?.targetId, own?.webhookId].filter((id): id is string => id !== undefined);
    const described = await this.deps.targets.describe(queue.organizationId, ids, ctx);
    return { existing, own, described };
  }

  /** Marks the queue's own validation webhook of the type removed (the link replaces it); the webhook service deletes it after the commit. */
  private async replaceOwnWebhook(tx: Tx, queue: Queue, type: ValidationType) {
    const own = await this.deps.validators.ownWebhookOfQueue(tx, queue.id, type);
    if (!own) return undefined;
    await this.deps.validators.record(
      {
        webhookId: own.webhookId,
        organizationId: queue.organizationId,
        type,
        entityType: "queue",
        entityId: queue.id,
        queueId: queue.id,
        workspaceId: queue.workspaceId,
        present: false,
        changedAt: new Date(),
      },
      tx,
    );
    return own;
  }

  /**
   * One per type: the queue's link, else the validation webhook of the deprecated API that Validate calls (the
   * queue's own, its workspace's, its organization's: nearest first), shown with its `webhook_id` and `allow`.
   */
  async list(actor: Actor, ref: string): Promise<ValidationLinkView[]> {
    const { queue } = await this.visibleQueue(actor, ref);
    const links = await this.deps.links.ofQueue(queue.id);
    // Read afresh, not from the cache: a webhook made a moment ago shows at once. Those of documents are not the queue's.
    const webhooks = (await this.deps.validators.ofQueue(queue)).webhooks.filter((webhook) => webhook.entityType !== "document");
    const nearest = ["queue", "workspace", "organization"];
    webhooks.sort((a, b) => nearest.indexOf(a.entityType) - nearest.indexOf(b.entityType));
    const byType = new Map<ValidationType, { targetId: string; link?: StoredValidationLink }>();
    for (const link of links) byType.set(link.type, { targetId: link.targetId, link });
    for (const webhook of webhooks) if (!byType.has(webhook.type)) byType.set(webhook.type, { targetId: webhook.webhookId });
    if (byType.size === 0) return [];
    const described = await this.deps.targets.describe(
      queue.organizationId,
      [...byType.values()].map((entry) => entry.targetId),
      { requestId: actor.requestId },
    );
    // Whole for those who may manage the queue's links; masked for other readers.
    const whole = await this.deps.access.allows(actor, "queue.manage", { organizationId: queue.organizationId, queueId: queue.id });
    return [...byType.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .flatMap(([type, entry]) => {
        const target = described.get(entry.targetId);
        if (!target) return [];
        const shown = { url: whole ? target.url : target.maskedUrl, signatureVerification: target.signatureVerification };
        if (entry.link) return [viewOf(entry.link, shown)];
        return [
          {
            queueId: queue.id,
            type,
            ...shown,
            failurePolicy: "allow" as const,
            createdAt: target.createdAt,
            updatedAt: target.updatedAt,
            webhookId: entry.targetId,
          },
        ];
      });
  }

  /** Deletes the queue's link of the type; without one, the queue's own validation webhook of that type (which the list shows as its link). */
  async delete(actor: Actor, ref: string, type: ValidationType): Promise<void> {
    const queue = await this.manageableQueue(actor, ref);
    // What the audit trail says was removed: described before the transaction, so that no lock waits on a call.
    const { existing, own, described } = await this.currentOf(queue, type, { requestId: actor.requestId });
    const replaced = await this.deps.sql.transaction(async (tx) => {
      await this.deps.links.lock(tx, queue.id, type);
      const deleted = await this.deps.links.delete(tx, queue.id, type);
      const webhook = deleted ? undefined : await this.replaceOwnWebhook(tx, queue, type);
      if (!deleted && !webhook) throw new NotFoundError(`Queue ${ref} has no ${type} link.`, "validation_link_not_found");
      const previous = deleted
        ? linkState(deleted, deleted.targetId === existing?.targetId ? described.get(deleted.targetId) : undefined)
        : webhookState(type, webhook?.webhookId === own?.webhookId && webhook ? described.get(webhook.webhookId) : undefined);
      const link = deleted ?? { queueId: queue.id, type, organizationId: queue.organizationId };
      await this.deps.events.add(tx, linkChanged(actor, link, previous, null));
      this.deps.hierarchy.forgetQueue(queue.id);
      tx.afterCommit(() => this.deps.hierarchy.forgetQueue(queue.id));
      return webhook;
    });
    if (replaced) await this.deps.replaced.tellReplaced(queue.organizationId, replaced.webhookId, actor.userId, actor.requestId);
  }
}

function viewOf(link: StoredValidationLink, target: { url: string; signatureVerification: SignatureVerification }): ValidationLinkView {
  return {
    queueId: link.queueId,
    type: link.type,
    url: target.url,
    signatureVerification: target.signatureVerification,
    failurePolicy: link.failurePolicy,
    createdAt: link.createdAt,
    updatedAt: link.updatedAt,
    webhookId: null,
  };
}

/** A URL as the audit log shows it: query values replaced, because integrators put tokens there. */
function auditUrl(url: string): string {
  const parsed = new URL(url);
  for (const name of new Set(parsed.searchParams.keys())) parsed.searchParams.set(name, "redacted");
  parsed.hash = "";
  return parsed.toString();
}

function linkState(link: StoredValidationLink, target: { url: string; signatureVerification: SignatureVerification } | undefined) {
  return {
    type: link.type,
    url: target ? auditUrl(target.url) : null,
    signature_verification: target?.signatureVerification ?? null,
    failure_policy: link.failurePolicy,
  };
}

/** A validation webhook of the deprecated API as a link's audit state shows it (it was the queue's link, under allow). */
function webhookState(type: ValidationType, target: { url: string; signatureVerification: SignatureVerification } | undefined) {
  return {
    type,
    url: target ? auditUrl(target.url) : null,
    signature_verification: target?.signatureVerification ?? null,
    failure_policy: "allow",
  };
}

function linkChanged(
  actor: Actor,
  link: Pick<StoredValidationLink, "queueId" | "type" | "organizationId">,
  previous: Record<string, unknown> | null,
  current: Record<string, unknown> | null,
): DocexEvent {
  const target = {
    organizationId: link.organizationId,
    resource: "validation_link",
    resourceId: link.type,
    queueId: link.queueId,
  } as const;
  return configurationChanged(target, previous, current, actor);
}
