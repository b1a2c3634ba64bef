// Original file: document.proto


export interface ReceiveEmailDocumentResponseInput {
  /**
   * Empty when refused.
   */
  'document_id'?: (string);
  /**
   * True when the key was seen before: the document was made by an earlier try.
   */
  'existing'?: (boolean);
  /**
   * Empty when kept; otherwise "unsupported_type" | "too_large" | "duplicate_document" | "storage_quota_exceeded"
   * (the organization's stored bytes) | "upload_quota_exceeded" (uploads per minute or documents per month: try later).
   */
  'refused'?: (string);
  /**
   * Why, in words (for the intake's log and reply).
   */
  'refusal_detail'?: (string);
}

export interface ReceiveEmailDocumentResponse {
  /**
   * Empty when refused.
   */
  'document_id': (string);
  /**
   * True when the key was seen before: the document was made by an earlier try.
   */
  'existing': (boolean);
  /**
   * Empty when kept; otherwise "unsupported_type" | "too_large" | "duplicate_document" | "storage_quota_exceeded"
   * (the organization's stored bytes) | "upload_quota_exceeded" (uploads per minute or documents per month: try later).
   */
  'refused': (string);
  /**
   * Why, in words (for the intake's log and reply).
   */
  'refusal_detail': (string);
}
