import { readAnnotations, readFieldDefinitions } from "@docex/annotations";
import { NotFoundError, undefinedIfNotFound } from "@docex/kit/errors";
import type { GrpcIdentity } from "@docex/kit/grpc";
import type { Logger } from "@docex/kit/logger";
import type { Metrics } from "@docex/kit/metrics";
import {
  annotationsJson,
  approvalRouteJson,
  automationBlockersJson,
  createDocumentClient,
  type DocumentRecord,
  documentChangeRequest,
  toJsonText,
} from "@docex/protos";
import type { ChangeOutcome, DocumentPort, DocumentState } from "../domain/document-port.js";
import type { DocumentStatus } from "../domain/records.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function documentState(record: DocumentRecord): DocumentState {
  return {
    id: record.id,
    queueId: record.queue_id,
    organizationId: record.organization_id,
    status: record.status as DocumentStatus,
    annotations: readAnnotations(record.annotations_json),
    approvers: record.approvers,
    confidence: record.confidence ?? null,
    version: record.version,
  };
}

/**
 * The gRPC client of the document service: one channel, a deadline on every call and a breaker, so that a
 * document service that is down answers 503 at once instead of holding requests and consumers.
 */
export function documentPort(
  address: string,
  options: { identity: GrpcIdentity; deadlineMs: number; metrics?: Metrics; logger: Logger },
): DocumentPort {
  const client = createDocumentClient(address, options);
  return {
    async queue(ref, ctx) {
      let queueId = ref.trim().toLowerCase();
      if (!UUID.test(queueId)) {
        const resolved = await undefinedIfNotFound(client.resolveEntity({ entity_type: "queue", id_or_humanized: ref }, ctx));
        if (!resolved) throw new NotFoundError(`Queue ${ref} does not exist.`, "queue_not_found");
        queueId = resolved.id;
      }
      const answer = await client.getQueue({ queue_id: queueId }, ctx).catch((error: unknown) => {
        if (error instanceof NotFoundError) throw new NotFoundError(`Queue ${ref} does not exist.`, "queue_not_found");
        throw error;
      });
      const queue = answer.queue;
      if (!queue) throw new Error(`GetQueue answered no queue for ${queueId}`);
      return {
        id: queue.id,
        humanizedId: queue.humanized_id,
        name: queue.name,
        workspaceId: queue.workspace_id,
        organizationId: queue.organization_id,
        annotationSchema: readFieldDefinitions(queue.annotation_schema_json),
        duplicateFileRejection: queue.duplicate_file_rejection,
        extractionEngine: queue.extraction_engine === "external" ? "external" : "builtin",
        documentLifetimeDays: queue.document_lifetime_days || null,
        inboxEmail: queue.inbox_email,
        inboxAllowedSenders: queue.inbox_allowed_senders,
        learnFromValidation: queue.learn_from_validation,
        createdAt: queue.created_at,
      };
    },
    async applyChanges(change, ctx) {
      const answer = await client.applyDocumentChanges(
        documentChangeRequest({
          document_id: change.documentId,
          expected_version: change.expectedVersion,
          source: "automation",
          idempotency_key: change.idempotencyKey,
          annotations_json: toJsonText(annotationsJson, change.annotations),
          ...(change.status ? { status: change.status } : {}),
          approvers: change.approvers,
          ...(change.approvalRoute ? { approval_route_json: toJsonText(approvalRouteJson, change.approvalRoute) } : {}),
          applied_rules: change.appliedRules,
          ...(change.automationBlockers ? { automation_blockers_json: toJsonText(automationBlockersJson, change.automationBlockers) } : {}),
        }),
        ctx,
      );
      if (!answer.document) throw new Error(`ApplyDocumentChanges answered no document for ${change.documentId}`);
      return { applied: answer.applied, reason: answer.reason as ChangeOutcome["reason"], document: documentState(answer.document) };
    },
    close: () => client.close(),
  };
}
