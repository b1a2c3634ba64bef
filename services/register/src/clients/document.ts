import { BoundedCache } from "@docex/kit/cache";
import { undefinedIfNotFound } from "@docex/kit/errors";
import type { GrpcIdentity } from "@docex/kit/grpc";
import type { Metrics } from "@docex/kit/metrics";
import { createDocumentClient } from "@docex/protos";
import type { DocumentPort } from "../domain/document-port.js";
import type { QueueRef } from "../domain/records.js";

export interface DocumentPortOptions {
  /** This service's certificate, presented to the server (GRPC_TLS_DIR). */
  identity: GrpcIdentity;
  metrics?: Metrics;
  deadlineMs: number;
  /** How long a resolved queue is reused. A queue never moves to another organization, so only memory bounds it. */
  cacheMs?: number;
  maxEntries?: number;
}

export interface DocumentPortClient extends DocumentPort {
  close(): void;
}

/**
 * The gRPC client of the document service (ResolveEntity): a deadline, a breaker so that an unreachable
 * document service answers 503 at once, and a cache of queues found (never of "not found").
 */
export function documentPort(address: string, options: DocumentPortOptions): DocumentPortClient {
  const client = createDocumentClient(address, options);
  const found = new BoundedCache<string, QueueRef>({ maxEntries: options.maxEntries ?? 10_000, ttlMs: options.cacheMs ?? 5 * 60_000 });

  return {
    resolveQueue: (ref, ctx) =>
      found.getOrLoad(ref, async () => {
        const answer = await undefinedIfNotFound(client.resolveEntity({ entity_type: "queue", id_or_humanized: ref }, ctx));
        return answer && { queueId: answer.id, organizationId: answer.organization_id };
      }),
    close: () => client.close(),
  };
}
