// Original file: webhook.proto


export interface DeleteValidationWebhookResponseInput {
  /**
   * False when there was nothing to delete.
   */
  'deleted'?: (boolean);
}

export interface DeleteValidationWebhookResponse {
  /**
   * False when there was nothing to delete.
   */
  'deleted': (boolean);
}
