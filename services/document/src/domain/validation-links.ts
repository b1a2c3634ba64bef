import { createEvent, type DocexEvent } from "@docex/events";
import { type CallContext, NotFoundError, type OutboxEvents, type Sql } from "@docex/kit";
import type { HierarchyStore } from "../store/hierarchy-store.js";
import type { StoredValidationLink, ValidationLinkStore } from "../store/validation-link-store.js";
import type { AccessControl, Actor } from "./access.js";
import { entityRefOf } from "./humanized-id.js";
import type { FailurePolicy, ValidationType } from "./validation.js";

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

/**
 * The validation webhooks of the deprecated API that may apply to a queue's documents (the queue's own, its
 * workspace's, its organization's), nearest first: the projection of the webhook service's events (ValidatorStore).
 */
export interface DeprecatedValidators {
  webhooksOfQueue(queue: {
    queueId: string;
    workspaceId: string;
    organizationId: string;
  }): Promise<Array<{ webhookId: string; type: ValidationType }>>;
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
      sql: Sql;
      links: ValidationLinkStore;
      hierarchy: HierarchyStore;
      access: AccessControl;
      targets: ValidationTargets;
      deprecated: DeprecatedValidators;
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
    const existing = (await this.deps.links.ofQueue(queue.id)).find((link) => link.type === input.type);
    const before = existing
      ? (await this.deps.targets.describe(queue.organizationId, [existing.targetId], ctx)).get(existing.targetId)
      : undefined;
    const signatureVerification = input.signatureVerification ?? before?.signatureVerification ?? "disabled";
    // A target never changes: a new one for every save, registered before the transaction (never committed: never called).
    const { targetId } = await this.deps.targets.register(
      { organizationId: queue.organizationId, url: input.url, signatureVerification },
      ctx,
    );
    return this.deps.sql.transaction(async (tx) => {
      const previous = await this.deps.links.lock(tx, queue.id, input.type);
      const saved = await this.deps.links.save(tx, {
        queueId: queue.id,
        type: input.type,
        organizationId: queue.organizationId,
        targetId,
        failurePolicy: input.failurePolicy ?? previous?.failurePolicy ?? "allow",
      });
      const current = { url: input.url, signatureVerification };
      const previousState = previous ? linkState(previous, previous.targetId === existing?.targetId ? before : undefined) : null;
      await this.deps.events.add(tx, linkChanged(actor, saved, previousState, linkState(saved, current)));
      this.deps.hierarchy.forgetQueue(queue.id);
      tx.afterCommit(() => this.deps.hierarchy.forgetQueue(queue.id));
      return { link: viewOf(saved, current), created: !previous };
    });
  }

  /**
   * One per type: the queue's link, else the validation webhook of the deprecated API that Validate calls (the
   * queue's own, its workspace's, its organization's: nearest first), shown with its `webhook_id` and `allow`.
   */
  async list(actor: Actor, ref: string): Promise<ValidationLinkView[]> {
    const { queue } = await this.visibleQueue(actor, ref);
    const links = await this.deps.links.ofQueue(queue.id);
    const webhooks = await this.deps.deprecated.webhooksOfQueue({
      queueId: queue.id,
      workspaceId: queue.workspaceId,
      organizationId: queue.organizationId,
    });
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

  async delete(actor: Actor, ref: string, type: ValidationType): Promise<void> {
    const queue = await this.manageableQueue(actor, ref);
    const ctx = { requestId: actor.requestId };
    // What the audit trail says was removed: described before the transaction, so that no lock waits on a call.
    const existing = (await this.deps.links.ofQueue(queue.id)).find((link) => link.type === type);
    const target = existing
      ? (await this.deps.targets.describe(queue.organizationId, [existing.targetId], ctx)).get(existing.targetId)
      : undefined;
    await this.deps.sql.transaction(async (tx) => {
      await this.deps.links.lock(tx, queue.id, type);
      const deleted = await this.deps.links.delete(tx, queue.id, type);
      if (!deleted) throw new NotFoundError(`Queue ${ref} has no ${type} link.`, "validation_link_not_found");
      await this.deps.events.add(
        tx,
        linkChanged(actor, deleted, linkState(deleted, deleted.targetId === existing?.targetId ? target : undefined), null),
      );
      this.deps.hierarchy.forgetQueue(queue.id);
      tx.afterCommit(() => this.deps.hierarchy.forgetQueue(queue.id));
    });
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

function linkChanged(
  actor: Actor,
  link: StoredValidationLink,
  previous: Record<string, unknown> | null,
  current: Record<string, unknown> | null,
): DocexEvent {
  return createEvent("configuration.changed", {
    organization_id: link.organizationId,
    actor_user_id: actor.userId,
    ...(actor.requestId ? { request_id: actor.requestId } : {}),
    data: {
      resource: "validation_link",
      resource_id: link.type,
      queue_id: link.queueId,
      change: current === null ? "deleted" : previous === null ? "created" : "updated",
      previous,
      current,
    },
  });
}
