import { NotFoundError } from "@docex/kit/errors";
import type { GrpcIdentity } from "@docex/kit/grpc";
import type { Metrics } from "@docex/kit/metrics";
import { createDocumentClient } from "@docex/protos";
import type { DocumentPort } from "../domain/document-port.js";

export interface DocumentPortClient extends DocumentPort {
  close(): void;
}

/**
 * The document service's ResolveEntity, asked whether a queue exists in an organization: a deadline, and a
 * breaker so that an unreachable document service answers 503 at once instead of piling up calls.
 */
export function documentPort(
  address: string,
  options: { identity: GrpcIdentity; deadlineMs: number; metrics?: Metrics },
): DocumentPortClient {
  const client = createDocumentClient(address, options);
  return {
    async queueIn(organizationId, queueId, ctx) {
      try {
        const answer = await client.resolveEntity({ entity_type: "queue", id_or_humanized: queueId, organization_id: organizationId }, ctx);
        return answer.organization_id === organizationId;
      } catch (error) {
        if (error instanceof NotFoundError) return false;
        throw error;
      }
    },
    close: () => client.close(),
  };
}
