// Original file: document.proto


export interface ExpectValidatorRequestInput {
  /**
   * "document" | "queue" | "workspace" | "organization".
   */
  'entity_type'?: (string);
  /**
   * UUID of the entity.
   */
  'entity_id'?: (string);
  /**
   * "document_validation" | "initial_document_validation".
   */
  'type'?: (string);
}

export interface ExpectValidatorRequest {
  /**
   * "document" | "queue" | "workspace" | "organization".
   */
  'entity_type': (string);
  /**
   * UUID of the entity.
   */
  'entity_id': (string);
  /**
   * "document_validation" | "initial_document_validation".
   */
  'type': (string);
}
