// Original file: document.proto


/**
 * Named DocumentRecord because the service is named Document.
 */
export interface DocumentRecordInput {
  'id'?: (string);
  'queue_id'?: (string);
  'workspace_id'?: (string);
  'organization_id'?: (string);
  'file_name'?: (string);
  /**
   * A document status of API.md, e.g. "to_validate".
   */
  'status'?: (string);
  /**
   * JSON array of Annotation in webhook form: {key, value, values?, numericValue?, isoDateValue?, confidence?, source?, rows?}.
   * Contract: annotationsReaderJson of src/json-fields.ts.
   */
  'annotations_json'?: (string);
  /**
   * JSON array of {key: string | null, message, severity: "error"|"warning"|"info"}.
   * Contract: messagesJson of src/json-fields.ts.
   */
  'messages_json'?: (string);
  /**
   * JSON object {<field key>: [{label, value}]}: register options valid only for this document.
   * Contract: optionsJson of src/json-fields.ts.
   */
  'options_json'?: (string);
  /**
   * User ids.
   */
  'approvers'?: (string)[];
  /**
   * Percentage 0-100; absent before extraction.
   */
  'confidence'?: (number | string);
  /**
   * Grows by one with every change; the base of optimistic concurrency in ApplyDocumentChanges.
   */
  'version'?: (number);
  /**
   * ISO 8601.
   */
  'created_at'?: (string);
  'updated_at'?: (string);
  '_confidence'?: "confidence";
}

/**
 * Named DocumentRecord because the service is named Document.
 */
export interface DocumentRecord {
  'id': (string);
  'queue_id': (string);
  'workspace_id': (string);
  'organization_id': (string);
  'file_name': (string);
  /**
   * A document status of API.md, e.g. "to_validate".
   */
  'status': (string);
  /**
   * JSON array of Annotation in webhook form: {key, value, values?, numericValue?, isoDateValue?, confidence?, source?, rows?}.
   * Contract: annotationsReaderJson of src/json-fields.ts.
   */
  'annotations_json': (string);
  /**
   * JSON array of {key: string | null, message, severity: "error"|"warning"|"info"}.
   * Contract: messagesJson of src/json-fields.ts.
   */
  'messages_json': (string);
  /**
   * JSON object {<field key>: [{label, value}]}: register options valid only for this document.
   * Contract: optionsJson of src/json-fields.ts.
   */
  'options_json': (string);
  /**
   * User ids.
   */
  'approvers': (string)[];
  /**
   * Percentage 0-100; absent before extraction.
   */
  'confidence'?: (number);
  /**
   * Grows by one with every change; the base of optimistic concurrency in ApplyDocumentChanges.
   */
  'version': (number);
  /**
   * ISO 8601.
   */
  'created_at': (string);
  'updated_at': (string);
  '_confidence'?: "confidence";
}
