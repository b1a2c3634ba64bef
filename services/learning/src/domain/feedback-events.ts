import { createEvent, type DocexEvent } from "@docex/events";
import type { LearnSet } from "./learn-set.js";
import type { SupplierIds, Visibility } from "./records.js";

interface FeedbackScope {
  organizationId: string;
  queueId: string;
  /** Null for POST /queues/{queue_id}/relearn. */
  documentId: string | null;
  supplier: SupplierIds;
  /** The user whose learn or relearn this is. */
  actorUserId: string;
  requestId?: string;
}

function common(scope: FeedbackScope) {
  return {
    queue_id: scope.queueId,
    document_id: scope.documentId,
    supplier: { tax_id: scope.supplier.taxId, register_id: scope.supplier.registerId, name: scope.supplier.name },
  };
}

/** learning.feedback for a learn: the annotation set as the user sent it, for an external trainer. */
export function learnFeedback(
  scope: FeedbackScope,
  payload: { annotations: LearnSet; lineItemsVisibility: Visibility | null; taxDetailVisibility: Visibility | null },
): DocexEvent<"learning.feedback"> {
  return createEvent("learning.feedback", {
    organization_id: scope.organizationId,
    data: {
      ...common(scope),
      kind: "learn",
      payload: {
        annotations: payload.annotations,
        line_items_visibility: payload.lineItemsVisibility,
        tax_detail_visibility: payload.taxDetailVisibility,
      },
    },
    actor_user_id: scope.actorUserId,
    ...(scope.requestId ? { request_id: scope.requestId } : {}),
  });
}

/** learning.feedback for a relearn: the field and the value pinned, or null when it was forgotten. */
export function relearnFeedback(
  scope: FeedbackScope,
  payload: { fieldKey: string; value: string | null },
): DocexEvent<"learning.feedback"> {
  return createEvent("learning.feedback", {
    organization_id: scope.organizationId,
    data: { ...common(scope), kind: "relearn", payload: { field_key: payload.fieldKey, value: payload.value } },
    actor_user_id: scope.actorUserId,
    ...(scope.requestId ? { request_id: scope.requestId } : {}),
  });
}
