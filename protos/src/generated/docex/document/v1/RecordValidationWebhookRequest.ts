// Original file: document.proto


export interface RecordValidationWebhookRequestInput {
  'webhook_id'?: (string);
  'organization_id'?: (string);
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
  /**
   * False: the webhook was deleted.
   */
  'present'?: (boolean);
  /**
   * When the webhook service committed this state (ISO 8601): the occurred_at of its configuration.changed event.
   */
  'changed_at'?: (string);
  /**
   * The user who made the change (for the audit event of a replacement); empty for none.
   */
  'actor_user_id'?: (string);
}

export interface RecordValidationWebhookRequest {
  'webhook_id': (string);
  'organization_id': (string);
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
  /**
   * False: the webhook was deleted.
   */
  'present': (boolean);
  /**
   * When the webhook service committed this state (ISO 8601): the occurred_at of its configuration.changed event.
   */
  'changed_at': (string);
  /**
   * The user who made the change (for the audit event of a replacement); empty for none.
   */
  'actor_user_id': (string);
}
