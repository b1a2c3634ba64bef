import { NotFoundError, undefinedIfNotFound, ValidationError } from "@docex/kit/errors";
import type { GrpcIdentity } from "@docex/kit/grpc";
import type { Metrics } from "@docex/kit/metrics";
import { createDocumentClient, type DocumentClient } from "@docex/protos";
import type { DocumentPort } from "../domain/document-port.js";

/**
 * The document service over gRPC (ResolveEntity, GetDocument, RecordValidationWebhook, HasValidationLink): one client per process, a deadline and a
 * circuit breaker, so that an unreachable document service answers 503 at once instead of holding requests.
 */
export function documentPort(address: string, options: { identity: GrpcIdentity; deadlineMs: number; metrics?: Metrics }): DocumentPort {
  const client: DocumentClient = createDocumentClient(address, options);
  return {
    async resolve(entityType, idOrHumanized, ctx) {
      try {
        const found = await client.resolveEntity({ entity_type: entityType, id_or_humanized: idOrHumanized }, ctx);
        return {
          entityType,
          entityId: found.id,
          organizationId: found.organization_id,
          workspaceId: found.workspace_id || null,
          queueId: found.queue_id || null,
          documentId: found.document_id || null,
        };
      } catch (error) {
        // INVALID_ARGUMENT: not a well-formed id of that type, which names no entity either.
        if (error instanceof NotFoundError || error instanceof ValidationError) return undefined;
        throw error;
      }
    },
    async approversOf(documentId, ctx) {
      const answer = await undefinedIfNotFound(client.getDocument({ document_id: documentId }, ctx));
      if (!answer) return undefined;
      return answer.document?.approvers ?? [];
    },
    async recordValidationWebhook(webhook, present, changedAt, actor) {
      await client.recordValidationWebhook(
        {
          webhook_id: webhook.id,
          organization_id: webhook.organizationId,
          entity_type: webhook.entityType,
          entity_id: webhook.entityId,
          type: webhook.type,
          present,
          changed_at: changedAt,
          actor_user_id: actor?.userId ?? "",
        },
        actor?.requestId ? { requestId: actor.requestId } : {},
      );
    },
    async hasValidationLink(organizationId, queueId, type, ctx) {
      const answer = await client.hasValidationLink({ organization_id: organizationId, queue_id: queueId, type }, ctx);
      return answer.exists;
    },
    close: () => client.close(),
  };
}
