// Original file: document.proto


export interface ResolveEntityResponseInput {
  'entity_type'?: (string);
  /**
   * UUID of the entity itself.
   */
  'id'?: (string);
  /**
   * Empty for documents.
   */
  'humanized_id'?: (string);
  /**
   * The entity's own id where it is of that type, its ancestors' ids, empty for levels below it.
   */
  'organization_id'?: (string);
  'workspace_id'?: (string);
  'queue_id'?: (string);
  'document_id'?: (string);
}

export interface ResolveEntityResponse {
  'entity_type': (string);
  /**
   * UUID of the entity itself.
   */
  'id': (string);
  /**
   * Empty for documents.
   */
  'humanized_id': (string);
  /**
   * The entity's own id where it is of that type, its ancestors' ids, empty for levels below it.
   */
  'organization_id': (string);
  'workspace_id': (string);
  'queue_id': (string);
  'document_id': (string);
}
