// Original file: webhook.proto


export interface ValidatorInput {
  /**
   * "link/<queue_id>/<type>" or "webhook/<webhook_id>": unique, and the order of the pages.
   */
  'key'?: (string);
  /**
   * "link" | "webhook".
   */
  'kind'?: (string);
  /**
   * The webhook's id; empty for a link.
   */
  'webhook_id'?: (string);
  /**
   * "document_validation" | "initial_document_validation".
   */
  'type'?: (string);
  /**
   * Where it applies: the queue of a link; the document, queue, workspace or organization of a webhook.
   */
  'entity_type'?: (string);
  'entity_id'?: (string);
  /**
   * "allow" | "block" (webhooks: "allow").
   */
  'failure_policy'?: (string);
}

export interface Validator {
  /**
   * "link/<queue_id>/<type>" or "webhook/<webhook_id>": unique, and the order of the pages.
   */
  'key': (string);
  /**
   * "link" | "webhook".
   */
  'kind': (string);
  /**
   * The webhook's id; empty for a link.
   */
  'webhook_id': (string);
  /**
   * "document_validation" | "initial_document_validation".
   */
  'type': (string);
  /**
   * Where it applies: the queue of a link; the document, queue, workspace or organization of a webhook.
   */
  'entity_type': (string);
  'entity_id': (string);
  /**
   * "allow" | "block" (webhooks: "allow").
   */
  'failure_policy': (string);
}
