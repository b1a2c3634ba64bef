// Original file: webhook.proto


export interface RegisterValidationTargetResponseInput {
  'target_id'?: (string);
  /**
   * The URL with its query values and credentials masked, for callers who show it to readers below its managers.
   */
  'masked_url'?: (string);
}

export interface RegisterValidationTargetResponse {
  'target_id': (string);
  /**
   * The URL with its query values and credentials masked, for callers who show it to readers below its managers.
   */
  'masked_url': (string);
}
