// Original file: document.proto


export interface QueueInput {
  'id'?: (string);
  'humanized_id'?: (string);
  'name'?: (string);
  'workspace_id'?: (string);
  'organization_id'?: (string);
  /**
   * JSON array of {key, label, type: "string"|"number"|"date"|"enum"|"table", multi_value?, columns?, register_id?}.
   * Contract: annotationSchemaJson of src/json-fields.ts.
   */
  'annotation_schema_json'?: (string);
  /**
   * ISO 8601.
   */
  'created_at'?: (string);
  /**
   * The queue option: uploading a file the organization already has answers 409.
   */
  'duplicate_file_rejection'?: (boolean);
  /**
   * "builtin" (the extraction service reads uploaded files) | "external" (an outside engine posts /extraction).
   */
  'extraction_engine'?: (string);
  /**
   * Days a document is kept before the lifetime sweep purges it; 0: kept (document_lifetime_days null).
   */
  'document_lifetime_days'?: (number);
  /**
   * <humanized_id>.<token>@<INTAKE_MAIL_DOMAIN>.
   */
  'inbox_email'?: (string);
  /**
   * Sender addresses and @domains the inbox takes mail from; empty: anyone.
   */
  'inbox_allowed_senders'?: (string)[];
  /**
   * The queue option: what people confirm when they move a document on from to_validate teaches learning (values)
   * and extraction (where the supplier prints each field).
   */
  'learn_from_validation'?: (boolean);
}

export interface Queue {
  'id': (string);
  'humanized_id': (string);
  'name': (string);
  'workspace_id': (string);
  'organization_id': (string);
  /**
   * JSON array of {key, label, type: "string"|"number"|"date"|"enum"|"table", multi_value?, columns?, register_id?}.
   * Contract: annotationSchemaJson of src/json-fields.ts.
   */
  'annotation_schema_json': (string);
  /**
   * ISO 8601.
   */
  'created_at': (string);
  /**
   * The queue option: uploading a file the organization already has answers 409.
   */
  'duplicate_file_rejection': (boolean);
  /**
   * "builtin" (the extraction service reads uploaded files) | "external" (an outside engine posts /extraction).
   */
  'extraction_engine': (string);
  /**
   * Days a document is kept before the lifetime sweep purges it; 0: kept (document_lifetime_days null).
   */
  'document_lifetime_days': (number);
  /**
   * <humanized_id>.<token>@<INTAKE_MAIL_DOMAIN>.
   */
  'inbox_email': (string);
  /**
   * Sender addresses and @domains the inbox takes mail from; empty: anyone.
   */
  'inbox_allowed_senders': (string)[];
  /**
   * The queue option: what people confirm when they move a document on from to_validate teaches learning (values)
   * and extraction (where the supplier prints each field).
   */
  'learn_from_validation': (boolean);
}
