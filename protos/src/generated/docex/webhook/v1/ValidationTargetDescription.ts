// Original file: webhook.proto


export interface ValidationTargetDescriptionInput {
  'target_id'?: (string);
  'url'?: (string);
  /**
   * The URL with its query values and credentials masked, for readers below its managers.
   */
  'masked_url'?: (string);
  /**
   * "enabled" | "disabled".
   */
  'signature_verification'?: (string);
}

export interface ValidationTargetDescription {
  'target_id': (string);
  'url': (string);
  /**
   * The URL with its query values and credentials masked, for readers below its managers.
   */
  'masked_url': (string);
  /**
   * "enabled" | "disabled".
   */
  'signature_verification': (string);
}
