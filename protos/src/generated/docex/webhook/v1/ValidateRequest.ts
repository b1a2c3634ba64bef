// Original file: webhook.proto


export interface ValidateRequestInput {
  /**
   * "document_validation" | "initial_document_validation".
   */
  'type'?: (string);
  'document_id'?: (string);
  'queue_id'?: (string);
  'workspace_id'?: (string);
  'organization_id'?: (string);
  /**
   * The user whose edit triggered the call; absent for initial_document_validation.
   */
  'user_id'?: (string);
  /**
   * JSON array of Annotation (webhook form).
   * Contract: annotationsReaderJson of src/json-fields.ts.
   */
  'previous_annotations_json'?: (string);
  /**
   * JSON array of Annotation (webhook form).
   * Contract: annotationsReaderJson of src/json-fields.ts.
   */
  'annotations_json'?: (string);
  /**
   * Budget for the receiver; 0 takes the configured default of the type. The gRPC deadline of the call must be longer,
   * because the server's handlers do not see it.
   */
  'timeout_ms'?: (number);
  /**
   * The target to call (RegisterValidationTarget, or a validation webhook's id): the caller has decided which validator
   * applies, so nothing is looked up but the target and its organization's key; a target of another organization
   * is none. Empty, or an id that names nothing: the nearest deprecated validation webhook (the queues' external
   * validation links are the document service's: it names their targets).
   */
  'target_id'?: (string);
  '_user_id'?: "user_id";
}

export interface ValidateRequest {
  /**
   * "document_validation" | "initial_document_validation".
   */
  'type': (string);
  'document_id': (string);
  'queue_id': (string);
  'workspace_id': (string);
  'organization_id': (string);
  /**
   * The user whose edit triggered the call; absent for initial_document_validation.
   */
  'user_id'?: (string);
  /**
   * JSON array of Annotation (webhook form).
   * Contract: annotationsReaderJson of src/json-fields.ts.
   */
  'previous_annotations_json': (string);
  /**
   * JSON array of Annotation (webhook form).
   * Contract: annotationsReaderJson of src/json-fields.ts.
   */
  'annotations_json': (string);
  /**
   * Budget for the receiver; 0 takes the configured default of the type. The gRPC deadline of the call must be longer,
   * because the server's handlers do not see it.
   */
  'timeout_ms': (number);
  /**
   * The target to call (RegisterValidationTarget, or a validation webhook's id): the caller has decided which validator
   * applies, so nothing is looked up but the target and its organization's key; a target of another organization
   * is none. Empty, or an id that names nothing: the nearest deprecated validation webhook (the queues' external
   * validation links are the document service's: it names their targets).
   */
  'target_id': (string);
  '_user_id'?: "user_id";
}
