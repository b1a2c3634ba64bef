import { undefinedIfNotFound } from "@docex/kit/errors";
import type { CallContext, GrpcIdentity } from "@docex/kit/grpc";
import type { Metrics } from "@docex/kit/metrics";
import { createDocumentClient, emailSourceJson, toJsonText } from "@docex/protos";
import type { DocumentPort, Inbox } from "../domain/document-port.js";

export interface DocumentPortOptions {
  /** This service's certificate, presented to the document service (GRPC_TLS_DIR). */
  identity: GrpcIdentity;
  resolveDeadlineMs: number;
  receiveDeadlineMs: number;
  metrics?: Metrics;
}

/** The document service over gRPC: ResolveInbox and ReceiveEmailDocument, never cached (a rotated address stops at once). */
export function documentPort(address: string, options: DocumentPortOptions): DocumentPort & { warm(): Promise<boolean>; close(): void } {
  const client = createDocumentClient(address, {
    identity: options.identity,
    metrics: options.metrics,
    deadlineMs: options.resolveDeadlineMs,
  });
  return {
    async resolveInbox(recipient: string, ctx: CallContext = {}): Promise<Inbox | undefined> {
      const answer = await undefinedIfNotFound(client.resolveInbox({ address: recipient }, ctx));
      if (!answer) return undefined;
      return { queueId: answer.queue_id, organizationId: answer.organization_id, allowedSenders: answer.allowed_senders };
    },
    async receive(attachment, ctx: CallContext = {}) {
      const answer = await client.receiveEmailDocument(
        {
          address: attachment.address,
          source_key: attachment.sourceKey,
          file_name: attachment.fileName,
          content: attachment.content,
          source_json: toJsonText(emailSourceJson, attachment.source),
        },
        { ...ctx, deadlineMs: options.receiveDeadlineMs },
      );
      if (answer.refused) return { refused: answer.refused, detail: answer.refusal_detail };
      return { documentId: answer.document_id, existing: answer.existing };
    },
    warm: () => client.warm(),
    close: () => client.close(),
  };
}
