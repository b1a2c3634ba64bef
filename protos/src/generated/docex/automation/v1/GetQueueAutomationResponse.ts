// Original file: automation.proto


export interface GetQueueAutomationResponseInput {
  /**
   * "enabled" | "disabled".
   */
  'accounting_automation'?: (string);
  /**
   * "enabled" | "disabled".
   */
  'automation_rules'?: (string);
  /**
   * "enabled" | "disabled".
   */
  'extraction_evaluation_status'?: (string);
  /**
   * One of 50, 60, 70, 80, 90, 95, 99; 0 when never set.
   */
  'document_confidence'?: (number);
  /**
   * JSON array of ExtractionEvaluationFieldDto: [{key, min_confidence, required}].
   * Contract: evaluationFieldsJson of src/json-fields.ts.
   */
  'fields_json'?: (string);
}

export interface GetQueueAutomationResponse {
  /**
   * "enabled" | "disabled".
   */
  'accounting_automation': (string);
  /**
   * "enabled" | "disabled".
   */
  'automation_rules': (string);
  /**
   * "enabled" | "disabled".
   */
  'extraction_evaluation_status': (string);
  /**
   * One of 50, 60, 70, 80, 90, 95, 99; 0 when never set.
   */
  'document_confidence': (number);
  /**
   * JSON array of ExtractionEvaluationFieldDto: [{key, min_confidence, required}].
   * Contract: evaluationFieldsJson of src/json-fields.ts.
   */
  'fields_json': (string);
}
