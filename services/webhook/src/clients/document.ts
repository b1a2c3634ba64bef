import { type GrpcIdentity, type Metrics, NotFoundError, ValidationError } from "@docex/kit";
import { createDocumentClient, type DocumentClient } from "@docex/protos";
import type { CallContext, EntityDirectory } from "../domain/entity-directory.js";

const context = (ctx?: CallContext) => (ctx?.requestId ? { requestId: ctx.requestId } : {});

/**
 * The document service over gRPC (ResolveEntity, GetDocument): one client per process, a deadline and a
 * circuit breaker, so that an unreachable document service answers 503 at once instead of holding requests.
 */
export function documentDirectory(
  address: string,
  options: { identity: GrpcIdentity; deadlineMs: number; metrics?: Metrics },
): EntityDirectory {
  const client: DocumentClient = createDocumentClient(address, {
    identity: options.identity,
    deadlineMs: options.deadlineMs,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    breaker: { resetTimeoutMs: 5_000 },
  });
  return {
    async resolve(entityType, idOrHumanized, ctx) {
      try {
        const found = await client.resolveEntity({ entity_type: entityType, id_or_humanized: idOrHumanized }, context(ctx));
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
      try {
        const answer = await client.getDocument({ document_id: documentId }, context(ctx));
        return answer.document?.approvers ?? [];
      } catch (error) {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      }
    },
    close: () => client.close(),
  };
}
