import type { ApplyDocumentChangesRequest } from "@docex/protos";

/** An ApplyDocumentChanges request that changes nothing, with `fields` set: expected_version 0, source validation. */
export function change(documentId: string, fields: Partial<ApplyDocumentChangesRequest> = {}): ApplyDocumentChangesRequest {
  return {
    document_id: documentId,
    expected_version: 0,
    source: "validation",
    annotations_json: "",
    messages_json: "",
    options_json: "",
    approvers: [],
    applied_rules: [],
    replace_messages: false,
    idempotency_key: "",
    cells_json: "",
    ...fields,
  };
}
