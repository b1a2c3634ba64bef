import { readAnnotationSchema, readAnnotations } from "@docex/annotations";
import { type EventBus, forgetChangedQueues, type GrpcIdentity, type Metrics, NotFoundError, undefinedIfNotFound } from "@docex/kit";
import { createDocumentClient } from "@docex/protos";
import type { DocumentFile, DocumentSource, DocumentView, QueueView } from "../domain/document-source.js";

export interface DocumentClientOptions {
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
export function documentSource(address: string, options: DocumentClientOptions): DocumentSource & { close(): void } {
  const client = createDocumentClient(address, options);
  const queues = new Map<string, QueueView>();
  const eviction = forgetChangedQueues(options.bus, (queueId) => (queueId === undefined ? queues.clear() : queues.delete(queueId)));
  return {
    async findQueue(queueId, ctx) {
      const hit = queues.get(queueId);
      if (hit) return hit;
      const answer = await undefinedIfNotFound(client.getQueue({ queue_id: queueId }, ctx));
      if (!answer?.queue) return undefined;
      const queue: QueueView = {
        id: answer.queue.id,
        extractionEngine: answer.queue.extraction_engine === "external" ? "external" : "builtin",
        schema: readAnnotationSchema(answer.queue.annotation_schema_json),
        learnFromValidation: answer.queue.learn_from_validation,
      };
      if (queues.size > 10_000) queues.delete(queues.keys().next().value as string);
      queues.set(queueId, queue);
      return queue;
    },
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
