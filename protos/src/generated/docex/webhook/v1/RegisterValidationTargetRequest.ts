// Original file: webhook.proto


export interface RegisterValidationTargetRequestInput {
  'organization_id'?: (string);
  'url'?: (string);
  /**
   * "enabled" | "disabled".
   */
  'signature_verification'?: (string);
}

export interface RegisterValidationTargetRequest {
  'organization_id': (string);
  'url': (string);
  /**
   * "enabled" | "disabled".
   */
  'signature_verification': (string);
}
