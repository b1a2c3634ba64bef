import { z } from "zod";
import { AUDITED_TYPES } from "../domain/audit-entries.js";
import type { StoredAuditEntry } from "../store/audit-store.js";

export const auditEntrySchema = z.strictObject({
  id: z.guid().describe("The id of the event the entry records"),
  type: z.enum(AUDITED_TYPES),
  occurred_at: z.iso.datetime(),
  organization_id: z.guid(),
  user_id: z.guid().nullable().describe("Who acted; null when the system did (automation, extraction, a disabled webhook)"),
  request_id: z.string().nullable().describe("The x-request-id of the request that made the change"),
  document_id: z.guid().nullable(),
  queue_id: z.guid().nullable(),
  details: z
    .record(z.string(), z.unknown())
    .describe(
      "What changed, by type: e.g. {from, to} of a status, {changes: [{key, before, after}]} of an edit, previous/current of a setting",
    ),
});

export function auditEntryResponse(entry: StoredAuditEntry): z.infer<typeof auditEntrySchema> {
  return {
    id: entry.eventId,
    type: entry.type,
    occurred_at: entry.occurredAt,
    organization_id: entry.organizationId!,
    user_id: entry.userId,
    request_id: entry.requestId,
    document_id: entry.documentId,
    queue_id: entry.queueId,
    details: entry.details,
  };
}
