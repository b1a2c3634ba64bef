import { readAnnotationSchema, readAnnotations } from "@docex/annotations";
import { forgetChangedQueues } from "@docex/domain/queue-changes";
import type { EventBus } from "@docex/kit/bus";
import { BoundedCache } from "@docex/kit/cache";
import { NotFoundError, undefinedIfNotFound } from "@docex/kit/errors";
import type { GrpcIdentity } from "@docex/kit/grpc";
import type { Metrics } from "@docex/kit/metrics";
import { createDocumentClient } from "@docex/protos";
import type { DocumentFile, DocumentPort, DocumentView, QueueView } from "../domain/document-port.js";

export interface DocumentPortOptions {
  /** This service's certificate, presented to the document service (GRPC_TLS_DIR). */
  identity: GrpcIdentity;
  deadlineMs: number;
  readDeadlineMs: number;
  metrics?: Metrics;
  /** Where `configuration.changed` of a queue arrives, to forget its cached schema and engine. */
  bus: Pick<EventBus, "broadcast">;
}

/**
 * The document service over gRPC: GetQueue (cached until a change of the queue is announced), GetDocument (the pages
 * API's access check), ReadDocumentFile, RecordExtraction.
 */
export function documentPort(address: string, options: DocumentPortOptions): DocumentPort & { close(): void } {
  const client = createDocumentClient(address, options);
  const queues = new BoundedCache<string, QueueView>({ maxEntries: 10_000 });
  const eviction = forgetChangedQueues(options.bus, (queueId) => queues.forget(queueId));
  return {
    findQueue: (queueId, ctx) =>
      queues.getOrLoad(queueId, async () => {
        const found = (await undefinedIfNotFound(client.getQueue({ queue_id: queueId }, ctx)))?.queue;
        if (!found) return undefined;
        return {
          id: found.id,
          extractionEngine: found.extraction_engine === "external" ? "external" : "builtin",
          schema: readAnnotationSchema(found.annotation_schema_json),
          learnFromValidation: found.learn_from_validation,
        };
      }),
    async findDocument(documentId, ctx) {
      const answer = await undefinedIfNotFound(client.getDocument({ document_id: documentId }, ctx));
      if (!answer?.document) return undefined;
      const { id, organization_id, queue_id, approvers, annotations_json } = answer.document;
      const document: DocumentView = {
        id,
        organizationId: organization_id,
        queueId: queue_id,
        approvers: [...approvers],
        annotations: readAnnotations(annotations_json),
      };
      return document;
    },
    async readFile(organizationId, documentId, maxBytes, ctx) {
      const chunks: Uint8Array[] = [];
      let size = 0;
      let contentType = "";
      let fileName = "";
      try {
        for await (const chunk of client.readDocumentFile(
          { organization_id: organizationId, document_id: documentId },
          { ...ctx, deadlineMs: options.readDeadlineMs },
        )) {
          if (chunks.length === 0 && size === 0) {
            contentType = chunk.content_type;
            fileName = chunk.file_name;
          }
          size += chunk.data.length;
          // Leaving the loop cancels the stream: a file past the bound is never held whole.
          if (size > maxBytes) return "too_large";
          chunks.push(chunk.data);
        }
      } catch (error) {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      }
      const bytes = new Uint8Array(size);
      let at = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, at);
        at += chunk.length;
      }
      const file: DocumentFile = { bytes, contentType, fileName };
      return file;
    },
    async recordExtraction(record, ctx) {
      const answer = await client.recordExtraction(
        {
          organization_id: record.organizationId,
          document_id: record.documentId,
          idempotency_key: record.idempotencyKey,
          extraction_json: record.extractionJson,
          messages_json: record.messagesJson,
          failed: record.failed,
        },
        ctx,
      );
      return { applied: answer.applied, reason: answer.reason };
    },
    close: () => {
      eviction.stop();
      client.close();
    },
  };
}
