import type { Actor } from "./access.js";
import type { EntityScope, EntityType, ValidationType, Webhook } from "./records.js";

export interface CallContext {
  requestId?: string;
}

/** What this service needs of the document context: which entity an id names, and who approves a document. */
export interface DocumentPort {
  /** Undefined when no entity of that type has this UUID or humanized id. */
  resolve(entityType: EntityType, idOrHumanized: string, ctx?: CallContext): Promise<EntityScope | undefined>;
  /** The user ids assigned to approve a document; undefined when the document is gone. */
  approversOf(documentId: string, ctx?: CallContext): Promise<string[] | undefined>;
  /**
   * Tells the document context, after the commit, that a validation webhook of the deprecated API is as it is now
   * (present, or deleted): which validator applies to a document is its configuration. Idempotent; `changedAt` is the
   * occurred_at of this change's configuration.changed, which the document context consumes as the backstop.
   */
  recordValidationWebhook(webhook: Webhook, present: boolean, changedAt: string, actor: Actor | null): Promise<void>;
  /** Whether the queue has an external validation link of the type (the document context's configuration). */
  hasValidationLink(organizationId: string, queueId: string, type: ValidationType, ctx?: CallContext): Promise<boolean>;
  close(): void;
}
