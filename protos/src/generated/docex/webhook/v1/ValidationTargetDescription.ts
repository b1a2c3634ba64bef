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
  /**
   * RFC 3339: when the target (or the validation webhook of that id) was made, and last changed (a target never changes).
   */
  'created_at'?: (string);
  'updated_at'?: (string);
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
  /**
   * RFC 3339: when the target (or the validation webhook of that id) was made, and last changed (a target never changes).
   */
  'created_at': (string);
  'updated_at': (string);
}
