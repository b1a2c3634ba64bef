import type { DocexEvent, DocumentStatusChangedPayload, QueueCreatedPayload } from "@docex/events";
import type { TraceCarrier } from "@docex/kit/tracing";

/** Webhook types whose events this service delivers; the validation types are called synchronously instead (issue 7). */
export const EVENT_WEBHOOK_TYPES = ["document_status_changed", "queue_created"] as const;
export type EventWebhookType = (typeof EVENT_WEBHOOK_TYPES)[number];

/** The entities whose webhooks receive one event, and the body they receive. */
export interface Fanout {
  eventId: string;
  type: EventWebhookType;
  /** The body exactly as sent and signed; kept as text so that every retry is byte for byte the same. */
  body: string;
  occurredAt: Date;
  targets: { organizationId: string | null; workspaceId: string | null; queueId: string | null; documentId: string | null };
  /** The trace of the event's handling, stored with its deliveries so that their attempts join it. */
  traceContext?: TraceCarrier;
}

/**
 * The spec's payload shapes ("Events" → "Payload shapes"), with their fields in the spec's order and nothing
 * else: document_status_changed {document_id, queue_id, status, webhook_event}.
 */
export function documentStatusChangedFanout(event: DocexEvent<"document.status_changed">): Fanout {
  const { data } = event;
  const body: DocumentStatusChangedPayload = {
    document_id: data.document_id,
    queue_id: data.queue_id,
    status: data.status,
    webhook_event: "document_status_changed",
  };
  return {
    eventId: event.id,
    type: "document_status_changed",
    body: JSON.stringify(body),
    occurredAt: new Date(event.occurred_at),
    targets: {
      organizationId: event.organization_id,
      workspaceId: data.workspace_id,
      queueId: data.queue_id,
      documentId: data.document_id,
    },
  };
}

/** queue_created {workspace_id, queue_id, webhook_event}: for the workspace's and the organization's webhooks. */
export function queueCreatedFanout(event: DocexEvent<"queue.created">): Fanout {
  const { data } = event;
  const body: QueueCreatedPayload = { workspace_id: data.workspace_id, queue_id: data.queue_id, webhook_event: "queue_created" };
  return {
    eventId: event.id,
    type: "queue_created",
    body: JSON.stringify(body),
    occurredAt: new Date(event.occurred_at),
    targets: {
      organizationId: data.organization_id ?? event.organization_id,
      workspaceId: data.workspace_id,
      queueId: null,
      documentId: null,
    },
  };
}
