// Original file: document.proto


export interface HasValidationLinkRequestInput {
  'organization_id'?: (string);
  'queue_id'?: (string);
  /**
   * "document_validation" | "initial_document_validation".
   */
  'type'?: (string);
}

export interface HasValidationLinkRequest {
  'organization_id': (string);
  'queue_id': (string);
  /**
   * "document_validation" | "initial_document_validation".
   */
  'type': (string);
}
