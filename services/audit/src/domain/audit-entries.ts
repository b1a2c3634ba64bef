import type { Annotation } from "@docex/annotations";
import { type DocexEvent, EVENT_TYPES, type EventType } from "@docex/events";

/**
 * Every event is audited except the two that are not a state change a user or an integration made (or the
 * system made on their data): mail requests, and onboarding (it shows as `organization.created`). An event type
 * added to the contracts is audited unless it is named here.
 */
const NOT_AUDITED = ["auth.user_onboarded", "auth.mail_requested"] as const satisfies readonly EventType[];

export type AuditedType = Exclude<EventType, (typeof NOT_AUDITED)[number]>;

export const AUDITED_TYPES: readonly AuditedType[] = EVENT_TYPES.filter(
  (type): type is AuditedType => !(NOT_AUDITED as readonly EventType[]).includes(type),
);

/** What `type=` accepts: an audited event type, or the family before its dot (`document`, `auth`, ...). */
export const AUDIT_TYPE_FAMILIES = [...new Set(AUDITED_TYPES.map((type) => type.split(".")[0]!))];

export function isAudited(type: EventType): type is AuditedType {
  return (AUDITED_TYPES as readonly string[]).includes(type);
}

/** One line of the audit log, before it is fanned out to the organizations that may see it. */
export interface AuditEntry {
  eventId: string;
  type: AuditedType;
  occurredAt: string;
  /** Who acted; null when the system did. */
  userId: string | null;
  requestId: string | null;
  documentId: string | null;
  queueId: string | null;
  /** What changed, with the values before and after where there are any. Never a secret: events carry none. */
  details: Record<string, unknown>;
}

/** One field whose annotation differs: the annotation before and after (null when it was added or removed). */
export interface AnnotationChange {
  key: string;
  before: Annotation | null;
  after: Annotation | null;
}

/** The fields an edit changed, in the order they appear after it (removed ones last). */
export function annotationChanges(before: Annotation[], after: Annotation[]): AnnotationChange[] {
  const previous = new Map(before.map((annotation) => [annotation.key, annotation]));
  const changes: AnnotationChange[] = [];
  for (const annotation of after) {
    const old = previous.get(annotation.key);
    previous.delete(annotation.key);
    if (!old || JSON.stringify(old) !== JSON.stringify(annotation))
      changes.push({ key: annotation.key, before: old ?? null, after: annotation });
  }
  for (const [key, old] of previous) changes.push({ key, before: old, after: null });
  return changes;
}

/** The audit line of an audited event; the organization it belongs to is the caller's concern. */
export function auditEntryOf(event: DocexEvent & { type: AuditedType }): AuditEntry {
  const base = {
    eventId: event.id,
    type: event.type,
    occurredAt: event.occurred_at,
    userId: event.actor_user_id ?? null,
    requestId: event.request_id ?? null,
    documentId: null,
    queueId: null,
  };
  switch (event.type) {
    case "auth.login_attempted": {
      const { user_id, ...details } = event.data;
      return { ...base, userId: user_id, details };
    }
    case "membership.changed": {
      const { organization_id: _organization, user_id, ...change } = event.data;
      return { ...base, details: { member_user_id: user_id, ...change } };
    }
    case "organization.created": {
      const { organization_id: _organization, ...details } = event.data;
      return { ...base, details };
    }
    case "queue.created":
    case "queue.deleted":
      return { ...base, queueId: event.data.queue_id, details: { workspace_id: event.data.workspace_id } };
    case "workspace.deleted":
      return { ...base, details: { workspace_id: event.data.workspace_id } };
    case "document.created": {
      const { document_id, queue_id, workspace_id, file_name, file_sha256 } = event.data;
      return { ...base, documentId: document_id, queueId: queue_id, details: { workspace_id, file_name, file_sha256 } };
    }
    case "document.extracted": {
      const { document_id, queue_id, confidence, version, annotations } = event.data;
      return { ...base, documentId: document_id, queueId: queue_id, details: { confidence, version, fields: annotations.length } };
    }
    case "document.annotations_changed": {
      const { document_id, queue_id, user_id, version, previous_annotations, annotations } = event.data;
      return {
        ...base,
        userId: base.userId ?? user_id,
        documentId: document_id,
        queueId: queue_id,
        details: { version, changes: annotationChanges(previous_annotations, annotations) },
      };
    }
    case "document.status_changed": {
      const { document_id, queue_id, user_id, status, previous_status } = event.data;
      return {
        ...base,
        userId: base.userId ?? user_id,
        documentId: document_id,
        queueId: queue_id,
        details: { from: previous_status, to: status },
      };
    }
    case "document.approved": {
      const { document_id, queue_id, user_id, workspace_id: _workspace, ...details } = event.data;
      return { ...base, userId: base.userId ?? user_id, documentId: document_id, queueId: queue_id, details };
    }
    case "automation.applied": {
      const { document_id, queue_id, ...details } = event.data;
      return { ...base, documentId: document_id, queueId: queue_id, details };
    }
    case "learning.feedback": {
      const { document_id, queue_id, ...details } = event.data;
      return { ...base, documentId: document_id, queueId: queue_id, details };
    }
    case "register.updated": {
      const { queue_id, ...details } = event.data;
      return { ...base, queueId: queue_id, details };
    }
    case "configuration.changed": {
      const { queue_id, ...details } = event.data;
      return { ...base, queueId: queue_id, details };
    }
    case "documents.purged": {
      const { queue_id, workspace_id, document_ids } = event.data;
      return { ...base, queueId: queue_id, details: { workspace_id, document_ids } };
    }
    case "user.personal_data_erased":
      return { ...base, details: { erased_user_id: event.data.user_id } };
    case "member.personal_data_erased":
      return { ...base, details: { erased_user_id: event.data.user_id, account_erased: event.data.account_erased } };
  }
}
