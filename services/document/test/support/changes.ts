import { type ApplyDocumentChangesRequest, documentChangeRequest } from "@docex/protos";

/** An ApplyDocumentChanges request that changes nothing, with `fields` set: expected_version 0, source validation. */
export function change(documentId: string, fields: Partial<ApplyDocumentChangesRequest> = {}): ApplyDocumentChangesRequest {
  return documentChangeRequest({ document_id: documentId, expected_version: 0, source: "validation", idempotency_key: "", ...fields });
}
