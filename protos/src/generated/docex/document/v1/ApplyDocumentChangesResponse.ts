// Original file: document.proto

import type { DocumentRecordInput as _docex_document_v1_DocumentRecordInput, DocumentRecord as _docex_document_v1_DocumentRecord } from '../../../docex/document/v1/DocumentRecord.js';

export interface ApplyDocumentChangesResponseInput {
  'applied'?: (boolean);
  /**
   * The document after the call, whether or not the change was applied.
   */
  'document'?: (_docex_document_v1_DocumentRecordInput | null);
  /**
   * Empty when applied; otherwise "version_conflict" | "status_move_not_allowed" | "blocked_by_error_messages".
   */
  'reason'?: (string);
}

export interface ApplyDocumentChangesResponse {
  'applied': (boolean);
  /**
   * The document after the call, whether or not the change was applied.
   */
  'document': (_docex_document_v1_DocumentRecord | null);
  /**
   * Empty when applied; otherwise "version_conflict" | "status_move_not_allowed" | "blocked_by_error_messages".
   */
  'reason': (string);
}
