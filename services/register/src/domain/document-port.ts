import type { QueueRef } from "./records.js";

/** Queues belong to the document service; this is what the register context asks of it. */
export interface DocumentPort {
  /** The queue named by a UUID or humanized id, or undefined when there is none. */
  resolveQueue(ref: string, ctx?: { requestId?: string }): Promise<QueueRef | undefined>;
}
