// Original file: webhook.proto


export interface DeleteValidationWebhookRequestInput {
  'organization_id'?: (string);
  'webhook_id'?: (string);
  /**
   * The user whose change replaced it (the audit event's actor); empty for none.
   */
  'actor_user_id'?: (string);
}

export interface DeleteValidationWebhookRequest {
  'organization_id': (string);
  'webhook_id': (string);
  /**
   * The user whose change replaced it (the audit event's actor); empty for none.
   */
  'actor_user_id': (string);
}
