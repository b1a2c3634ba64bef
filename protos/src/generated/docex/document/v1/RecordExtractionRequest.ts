// Original file: document.proto


export interface RecordExtractionRequestInput {
  'organization_id'?: (string);
  'document_id'?: (string);
  /**
   * A key seen before for this document answers applied = false, reason "already_recorded", without recording again.
   */
  'idempotency_key'?: (string);
  /**
   * The body of POST /documents/{id}/extraction: {annotations, confidence}.
   * Contract: extractionJson of src/json-fields.ts.
   */
  'extraction_json'?: (string);
  /**
   * JSON array of {key: string | null, message, severity}: messages to add, e.g. info "no text could be read"; "" adds none.
   * Contract: messagesJson of src/json-fields.ts.
   */
  'messages_json'?: (string);
  /**
   * The engine gave up on the file (it overran the reader's memory or time, or stopped the reader on every try): the
   * document moves to extraction_failed with the messages, and extraction_json is ignored.
   */
  'failed'?: (boolean);
  '_failed'?: "failed";
}

export interface RecordExtractionRequest {
  'organization_id': (string);
  'document_id': (string);
  /**
   * A key seen before for this document answers applied = false, reason "already_recorded", without recording again.
   */
  'idempotency_key': (string);
  /**
   * The body of POST /documents/{id}/extraction: {annotations, confidence}.
   * Contract: extractionJson of src/json-fields.ts.
   */
  'extraction_json': (string);
  /**
   * JSON array of {key: string | null, message, severity}: messages to add, e.g. info "no text could be read"; "" adds none.
   * Contract: messagesJson of src/json-fields.ts.
   */
  'messages_json': (string);
  /**
   * The engine gave up on the file (it overran the reader's memory or time, or stopped the reader on every try): the
   * document moves to extraction_failed with the messages, and extraction_json is ignored.
   */
  'failed'?: (boolean);
  '_failed'?: "failed";
}
