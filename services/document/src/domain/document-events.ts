import { createEvent, type DocexEvent } from "@docex/events";
import type { Queue, StoredDocument } from "./records.js";

const withRequestId = (requestId: string | undefined) => (requestId ? { request_id: requestId } : {});

export function queueCreated(queue: Queue, requestId?: string): DocexEvent {
  return createEvent("queue.created", {
    organization_id: queue.organizationId,
    data: { workspace_id: queue.workspaceId, queue_id: queue.id, organization_id: queue.organizationId },
    ...withRequestId(requestId),
  });
}

export function documentExtracted(document: StoredDocument, requestId?: string): DocexEvent {
  return createEvent("document.extracted", {
    organization_id: document.organizationId,
    data: {
      document_id: document.id,
      queue_id: document.queueId,
      workspace_id: document.workspaceId,
      organization_id: document.organizationId,
      annotations: document.annotations,
      confidence: document.confidence,
      version: document.version,
    },
    ...withRequestId(requestId),
  });
}

export function annotationsChanged(before: StoredDocument, after: StoredDocument, userId: string | null, requestId?: string): DocexEvent {
  return createEvent("document.annotations_changed", {
    organization_id: after.organizationId,
    data: {
      document_id: after.id,
      queue_id: after.queueId,
      workspace_id: after.workspaceId,
      user_id: userId,
      previous_annotations: before.annotations,
      annotations: after.annotations,
      version: after.version,
    },
    ...withRequestId(requestId),
  });
}

export function statusChanged(before: StoredDocument, after: StoredDocument, userId: string | null, requestId?: string): DocexEvent {
  return createEvent("document.status_changed", {
    organization_id: after.organizationId,
    data: {
      document_id: after.id,
      queue_id: after.queueId,
      workspace_id: after.workspaceId,
      status: after.status,
      previous_status: before.status,
      user_id: userId,
    },
    ...withRequestId(requestId),
  });
}
