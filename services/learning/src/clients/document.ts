import { readAnnotationSchema, readAnnotations } from "@docex/annotations";
import { forgetChangedQueues } from "@docex/domain/queue-changes";
import type { EventBus } from "@docex/kit/bus";
import { BoundedCache } from "@docex/kit/cache";
import { undefinedIfNotFound } from "@docex/kit/errors";
import type { GrpcIdentity } from "@docex/kit/grpc";
import type { Metrics } from "@docex/kit/metrics";
import { annotationsJson, createDocumentClient, type DocumentRecord, documentChangeRequest, toJsonText } from "@docex/protos";
import type { QueueView } from "../domain/annotation-schema.js";
import type { DocumentPort } from "../domain/document-port.js";
import type { DocumentView } from "../domain/records.js";

export interface DocumentPortOptions {
  /** This service's certificate, presented to the server (GRPC_TLS_DIR). */
  identity: GrpcIdentity;
  metrics?: Metrics;
  deadlineMs: number;
  /** How long a queue's schema is reused; a change of the queue announced on `bus` forgets it sooner. */
  queueCacheMs?: number;
  /** Where `configuration.changed` of a queue arrives. */
  bus?: Pick<EventBus, "broadcast">;
  maxCachedQueues?: number;
}

export interface DocumentPortClient extends DocumentPort {
  close(): void;
}

function documentView(record: DocumentRecord): DocumentView {
  return {
    id: record.id,
    queueId: record.queue_id,
    organizationId: record.organization_id,
    status: record.status,
    approvers: record.approvers,
    annotations: readAnnotations(record.annotations_json),
    version: record.version,
  };
}

/**
 * The gRPC client of the document service: a deadline, a breaker so that an unreachable document service
 * answers 503 at once (and the consumer retries later), and a cache of queue schemas.
 */
export function documentPort(address: string, options: DocumentPortOptions): DocumentPortClient {
  const client = createDocumentClient(address, options);
  const queues = new BoundedCache<string, QueueView>({
    maxEntries: options.maxCachedQueues ?? 10_000,
    ttlMs: options.queueCacheMs ?? 5 * 60_000,
  });
  const eviction = options.bus && forgetChangedQueues(options.bus, (queueId) => queues.forget(queueId));

  return {
    async findDocument(documentId, ctx) {
      const answer = await undefinedIfNotFound(client.getDocument({ document_id: documentId }, ctx));
      return answer?.document ? documentView(answer.document) : undefined;
    },
    findQueue: (queueId, ctx) =>
      queues.getOrLoad(queueId, async () => {
        const answer = await undefinedIfNotFound(client.getQueue({ queue_id: queueId }, ctx));
        if (!answer?.queue) return undefined;
        const { id, organization_id, annotation_schema_json, learn_from_validation } = answer.queue;
        return {
          id,
          organizationId: organization_id,
          schema: readAnnotationSchema(annotation_schema_json),
          learnFromValidation: learn_from_validation,
        };
      }),
    async resolveQueue(ref, ctx) {
      const answer = await undefinedIfNotFound(client.resolveEntity({ entity_type: "queue", id_or_humanized: ref }, ctx));
      return answer ? { queueId: answer.id, organizationId: answer.organization_id } : undefined;
    },
    async applyLearnedValues(change, ctx) {
      const answer = await client.applyDocumentChanges(
        documentChangeRequest({
          document_id: change.documentId,
          expected_version: change.expectedVersion,
          source: "learning",
          idempotency_key: change.idempotencyKey,
          annotations_json: toJsonText(annotationsJson, change.annotations),
        }),
        ctx,
      );
      if (!answer.document) throw new Error("ApplyDocumentChanges answered without the document");
      return { applied: answer.applied, reason: answer.reason, document: documentView(answer.document) };
    },
    close: () => {
      eviction?.stop();
      client.close();
    },
  };
}
