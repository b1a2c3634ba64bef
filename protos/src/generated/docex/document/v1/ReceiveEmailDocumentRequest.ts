// Original file: document.proto


export interface ReceiveEmailDocumentRequestInput {
  /**
   * The recipient address the mail was sent to; checked again here.
   */
  'address'?: (string);
  /**
   * Derived by the intake from the message (Message-ID, attachment): the same key makes no second document.
   */
  'source_key'?: (string);
  'file_name'?: (string);
  /**
   * The attachment's bytes (at most DOCUMENT_MAX_FILE_BYTES).
   */
  'content'?: (Buffer | Uint8Array | string);
  /**
   * JSON {from, subject, message_id, received_at, auth: {spf, dkim, dmarc}}: the document's source (channel "email").
   * Contract: emailSourceJson of src/json-fields.ts.
   */
  'source_json'?: (string);
}

export interface ReceiveEmailDocumentRequest {
  /**
   * The recipient address the mail was sent to; checked again here.
   */
  'address': (string);
  /**
   * Derived by the intake from the message (Message-ID, attachment): the same key makes no second document.
   */
  'source_key': (string);
  'file_name': (string);
  /**
   * The attachment's bytes (at most DOCUMENT_MAX_FILE_BYTES).
   */
  'content': (Buffer);
  /**
   * JSON {from, subject, message_id, received_at, auth: {spf, dkim, dmarc}}: the document's source (channel "email").
   * Contract: emailSourceJson of src/json-fields.ts.
   */
  'source_json': (string);
}
