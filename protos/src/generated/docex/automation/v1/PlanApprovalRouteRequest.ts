// Original file: automation.proto


export interface PlanApprovalRouteRequestInput {
  'organization_id'?: (string);
  'queue_id'?: (string);
  /**
   * For logs and traces only: the plan depends on the annotations sent, not on what automation knows of the document.
   */
  'document_id'?: (string);
  /**
   * JSON array of the document's annotations (webhook form: key, value, values?, numericValue?, isoDateValue?, rows?).
   * Contract: annotationsReaderJson of src/json-fields.ts.
   */
  'annotations_json'?: (string);
  /**
   * JSON array of the queue's annotation schema: the document service owns it, so automation does not ask it back.
   * Contract: annotationSchemaJson of src/json-fields.ts.
   */
  'annotation_schema_json'?: (string);
}

export interface PlanApprovalRouteRequest {
  'organization_id': (string);
  'queue_id': (string);
  /**
   * For logs and traces only: the plan depends on the annotations sent, not on what automation knows of the document.
   */
  'document_id': (string);
  /**
   * JSON array of the document's annotations (webhook form: key, value, values?, numericValue?, isoDateValue?, rows?).
   * Contract: annotationsReaderJson of src/json-fields.ts.
   */
  'annotations_json': (string);
  /**
   * JSON array of the queue's annotation schema: the document service owns it, so automation does not ask it back.
   * Contract: annotationSchemaJson of src/json-fields.ts.
   */
  'annotation_schema_json': (string);
}
