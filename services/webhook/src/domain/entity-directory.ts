import type { EntityScope, EntityType } from "./records.js";

export interface CallContext {
  requestId?: string;
}

/** What this service needs of the document context: which entity an id names, and who approves a document. */
export interface EntityDirectory {
  /** Undefined when no entity of that type has this UUID or humanized id. */
  resolve(entityType: EntityType, idOrHumanized: string, ctx?: CallContext): Promise<EntityScope | undefined>;
  /** The user ids assigned to approve a document; undefined when the document is gone. */
  approversOf(documentId: string, ctx?: CallContext): Promise<string[] | undefined>;
  close(): void;
}
