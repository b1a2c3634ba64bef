import { type ConfigurationResource, createEvent, type DocexEvent, type EventData } from "@docex/events";
import type { StageApproval } from "./approval.js";
import type { Queue, StoredDocument } from "./records.js";

/** Who caused an event: the user whose request it was (null when a service acted), and the request. */
export interface EventCause {
  userId: string | null;
  requestId?: string | undefined;
}

/** The envelope's `actor_user_id` (for the audit log) and `request_id`. */
const envelopeOf = ({ userId, requestId }: EventCause) => ({ actor_user_id: userId, ...(requestId ? { request_id: requestId } : {}) });

export function queueCreated(queue: Queue, cause: EventCause): DocexEvent {
  return createEvent("queue.created", {
    organization_id: queue.organizationId,
    data: { workspace_id: queue.workspaceId, queue_id: queue.id, organization_id: queue.organizationId },
    ...envelopeOf(cause),
  });
}

export function queueDeleted(queue: Queue, cause: EventCause): DocexEvent {
  return createEvent("queue.deleted", {
    organization_id: queue.organizationId,
    data: { workspace_id: queue.workspaceId, queue_id: queue.id, organization_id: queue.organizationId },
    ...envelopeOf(cause),
  });
}

export function workspaceDeleted(workspace: { id: string; organizationId: string }, cause: EventCause): DocexEvent {
  return createEvent("workspace.deleted", {
    organization_id: workspace.organizationId,
    data: { workspace_id: workspace.id, organization_id: workspace.organizationId },
    ...envelopeOf(cause),
  });
}

/** The configuration a `configuration.changed` is of: its resource and id, the queue it belongs to, its organization. */
export interface ConfigurationTarget {
  organizationId: string;
  resource: ConfigurationResource;
  resourceId: string | null;
  queueId: string | null;
}

/**
 * `configuration.changed` of one thing the actor configured, with its state before and after: created when there was
 * none before (`previous` null), deleted when there is none after (`current` null), updated otherwise.
 */
export function configurationChanged(target: ConfigurationTarget, previous: unknown, current: unknown, cause: EventCause): DocexEvent {
  return createEvent("configuration.changed", {
    organization_id: target.organizationId,
    data: {
      resource: target.resource,
      resource_id: target.resourceId,
      queue_id: target.queueId,
      change: current === null ? "deleted" : previous === null ? "created" : "updated",
      previous,
      current,
    },
    ...envelopeOf(cause),
  });
}

/**
 * `configuration.changed` of a workspace or queue the actor changed: the fields before and after, only those that
 * changed. Every replica forgets a changed queue it cached on it.
 */
export function hierarchyChanged(
  resource: "workspace" | "queue",
  entity: { id: string; organizationId: string },
  previous: Record<string, unknown>,
  current: Record<string, unknown>,
  cause: EventCause,
): DocexEvent {
  const target = {
    organizationId: entity.organizationId,
    resource,
    resourceId: entity.id,
    queueId: resource === "queue" ? entity.id : null,
  };
  return configurationChanged(target, previous, current, cause);
}

type DocumentEventType =
  | "document.created"
  | "document.extracted"
  | "document.annotations_changed"
  | "document.status_changed"
  | "document.approved";

/** A document's event: its organization on the envelope, its place in the hierarchy first in the data. */
function documentEvent<T extends DocumentEventType>(
  type: T,
  document: StoredDocument,
  data: Omit<EventData<T>, "document_id" | "queue_id" | "workspace_id">,
  cause: EventCause,
): DocexEvent {
  return createEvent(type, {
    organization_id: document.organizationId,
    data: { document_id: document.id, queue_id: document.queueId, workspace_id: document.workspaceId, ...data } as EventData<T>,
    ...envelopeOf(cause),
  });
}

export function documentCreated(document: StoredDocument, cause: EventCause): DocexEvent {
  return documentEvent(
    "document.created",
    document,
    {
      organization_id: document.organizationId,
      file_name: document.fileName,
      file_sha256: document.fileSha256,
      content_type: document.fileContentType,
      file_size: document.fileSize,
      has_file: document.fileSize !== null,
      channel: document.source.channel,
    },
    cause,
  );
}

export function documentExtracted(document: StoredDocument, cause: EventCause): DocexEvent {
  return documentEvent(
    "document.extracted",
    document,
    {
      organization_id: document.organizationId,
      annotations: document.annotations,
      confidence: document.confidence,
      version: document.version,
    },
    cause,
  );
}

export function annotationsChanged(before: StoredDocument, after: StoredDocument, cause: EventCause): DocexEvent {
  return documentEvent(
    "document.annotations_changed",
    after,
    { user_id: cause.userId, previous_annotations: before.annotations, annotations: after.annotations, version: after.version },
    cause,
  );
}

export function statusChanged(before: StoredDocument, after: StoredDocument, cause: EventCause): DocexEvent {
  return documentEvent(
    "document.status_changed",
    after,
    { status: after.status, previous_status: before.status, user_id: cause.userId },
    cause,
  );
}

/** One approver's approval of the document's current stage. */
export function documentApproved(document: StoredDocument, userId: string, approval: StageApproval, cause: EventCause): DocexEvent {
  return documentEvent(
    "document.approved",
    document,
    {
      user_id: userId,
      stage: approval.stage,
      stages: approval.stages,
      approvals: approval.approvals,
      min_approvals: approval.minApprovals,
      stage_completed: approval.completed,
    },
    cause,
  );
}
