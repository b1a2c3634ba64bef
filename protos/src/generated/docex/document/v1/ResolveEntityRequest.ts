// Original file: document.proto


export interface ResolveEntityRequestInput {
  /**
   * "organization" | "workspace" | "queue" | "document".
   */
  'entity_type'?: (string);
  'id_or_humanized'?: (string);
  /**
   * Scopes the lookup to one organization.
   */
  'organization_id'?: (string);
  '_organization_id'?: "organization_id";
}

export interface ResolveEntityRequest {
  /**
   * "organization" | "workspace" | "queue" | "document".
   */
  'entity_type': (string);
  'id_or_humanized': (string);
  /**
   * Scopes the lookup to one organization.
   */
  'organization_id'?: (string);
  '_organization_id'?: "organization_id";
}
