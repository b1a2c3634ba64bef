// Original file: document.proto


export interface ApplyDocumentChangesRequestInput {
  'document_id'?: (string);
  /**
   * The version the caller based its change on; another current version answers applied = false,
   * reason "version_conflict". 0 applies whatever the current version is.
   */
  'expected_version'?: (number);
  /**
   * "automation" | "learning" | "validation".
   */
  'source'?: (string);
  /**
   * JSON array of Annotation (webhook form) whose values replace those of the same key; "" or "[]" changes none.
   * Contract: annotationsJson of src/json-fields.ts.
   */
  'annotations_json'?: (string);
  /**
   * JSON array of {key: string | null, message, severity}.
   * Contract: messagesJson of src/json-fields.ts.
   */
  'messages_json'?: (string);
  /**
   * JSON object {<field key>: [{label, value}]}; replaces the options of the keys it names.
   * Contract: optionsJson of src/json-fields.ts.
   */
  'options_json'?: (string);
  /**
   * Target status, subject to the same moves and blocking error messages as POST /documents/{id}/status;
   * absent leaves the status unchanged.
   */
  'status'?: (string);
  /**
   * User ids that become the document's approvers; empty leaves them unchanged.
   */
  'approvers'?: (string)[];
  /**
   * Ids of the automation rules that produced this change, for automation.applied and the audit trail.
   */
  'applied_rules'?: (string)[];
  /**
   * True: messages_json replaces the messages this source added before (a validation answer replaces the
   * previous one). False: they are added.
   */
  'replace_messages'?: (boolean);
  /**
   * A key seen before answers the first call's outcome without applying anything again.
   */
  'idempotency_key'?: (string);
  /**
   * JSON array of {key, row_index, value}: replacements of single cells of table fields such as line_items.
   * Contract: cellsJson of src/json-fields.ts.
   */
  'cells_json'?: (string);
  /**
   * JSON {stages: [{approver_ids: [uuid], min_approvals}], stage}: the approval route the document follows from
   * stage `stage` (0-based); `approvers` join that stage. "" leaves the route as it is.
   * Contract: approvalRouteJson of src/json-fields.ts.
   */
  'approval_route_json'?: (string);
  /**
   * JSON array of {key: string | null, reason}: why extraction evaluation keeps the document for manual validation,
   * replacing what the last evaluation said ("[]": nothing keeps it). "" leaves them as they are.
   * Contract: automationBlockersJson of src/json-fields.ts.
   */
  'automation_blockers_json'?: (string);
  '_status'?: "status";
}

export interface ApplyDocumentChangesRequest {
  'document_id': (string);
  /**
   * The version the caller based its change on; another current version answers applied = false,
   * reason "version_conflict". 0 applies whatever the current version is.
   */
  'expected_version': (number);
  /**
   * "automation" | "learning" | "validation".
   */
  'source': (string);
  /**
   * JSON array of Annotation (webhook form) whose values replace those of the same key; "" or "[]" changes none.
   * Contract: annotationsJson of src/json-fields.ts.
   */
  'annotations_json': (string);
  /**
   * JSON array of {key: string | null, message, severity}.
   * Contract: messagesJson of src/json-fields.ts.
   */
  'messages_json': (string);
  /**
   * JSON object {<field key>: [{label, value}]}; replaces the options of the keys it names.
   * Contract: optionsJson of src/json-fields.ts.
   */
  'options_json': (string);
  /**
   * Target status, subject to the same moves and blocking error messages as POST /documents/{id}/status;
   * absent leaves the status unchanged.
   */
  'status'?: (string);
  /**
   * User ids that become the document's approvers; empty leaves them unchanged.
   */
  'approvers': (string)[];
  /**
   * Ids of the automation rules that produced this change, for automation.applied and the audit trail.
   */
  'applied_rules': (string)[];
  /**
   * True: messages_json replaces the messages this source added before (a validation answer replaces the
   * previous one). False: they are added.
   */
  'replace_messages': (boolean);
  /**
   * A key seen before answers the first call's outcome without applying anything again.
   */
  'idempotency_key': (string);
  /**
   * JSON array of {key, row_index, value}: replacements of single cells of table fields such as line_items.
   * Contract: cellsJson of src/json-fields.ts.
   */
  'cells_json': (string);
  /**
   * JSON {stages: [{approver_ids: [uuid], min_approvals}], stage}: the approval route the document follows from
   * stage `stage` (0-based); `approvers` join that stage. "" leaves the route as it is.
   * Contract: approvalRouteJson of src/json-fields.ts.
   */
  'approval_route_json': (string);
  /**
   * JSON array of {key: string | null, reason}: why extraction evaluation keeps the document for manual validation,
   * replacing what the last evaluation said ("[]": nothing keeps it). "" leaves them as they are.
   * Contract: automationBlockersJson of src/json-fields.ts.
   */
  'automation_blockers_json': (string);
  '_status'?: "status";
}
