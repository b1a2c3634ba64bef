import type { ApplyDocumentChangesRequest } from "./generated/docex/document/v1/ApplyDocumentChangesRequest.js";

/** What every ApplyDocumentChanges request names: the document, the version it is based on, who asks, and its key. */
type ChangeHeader = Pick<ApplyDocumentChangesRequest, "document_id" | "expected_version" | "source" | "idempotency_key">;

/** An ApplyDocumentChanges request that changes only what `change` names; every other field changes nothing. */
export function documentChangeRequest(change: ChangeHeader & Partial<ApplyDocumentChangesRequest>): ApplyDocumentChangesRequest {
  return {
    annotations_json: "",
    messages_json: "",
    options_json: "",
    approvers: [],
    applied_rules: [],
    replace_messages: false,
    cells_json: "",
    approval_route_json: "",
    automation_blockers_json: "",
    ...change,
  };
}
