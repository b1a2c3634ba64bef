import type { RequestContext } from "./organizations.js";

/** What membership needs of the document service, which owns queues (src/clients/document.ts implements it over gRPC). */
export interface DocumentPort {
  /** Whether `queueId` (a UUID) is a queue of the organization. */
  queueIn(organizationId: string, queueId: string, ctx: RequestContext): Promise<boolean>;
}
