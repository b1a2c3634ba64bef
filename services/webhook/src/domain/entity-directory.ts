import type { EntityScope, EntityType, ValidationType } from "./records.js";

export interface CallContext {
  requestId?: string;
}

/** What this service needs of the document context: which entity an id names, and who approves a document. */
export interface EntityDirectory {
  /** Undefined when no entity of that type has this UUID or humanized id. */
  resolve(entityType: EntityType, idOrHumanized: string, ctx?: CallContext): Promise<EntityScope | undefined>;
  /** The user ids assigned to approve a document; undefined when the document is gone. */
  approversOf(documentId: string, ctx?: CallContext): Promise<string[] | undefined>;
  /**
   * Tells the document context that a validator of `type` may apply to the entity's documents from now on. Called
   * inside the transaction that creates it, before the commit: an edit made right after the commit is validated
   * although the change's event has not reached the document service yet. Throws when it cannot be told, so that
   * the change is not committed (the document service asks nobody about a validator it has not heard of).
   */
  expectValidator(entityType: EntityType, entityId: string, type: ValidationType, ctx?: CallContext): Promise<void>;
  close(): void;
}
