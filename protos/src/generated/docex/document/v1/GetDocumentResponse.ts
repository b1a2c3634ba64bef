// Original file: document.proto

import type { DocumentRecordInput as _docex_document_v1_DocumentRecordInput, DocumentRecord as _docex_document_v1_DocumentRecord } from '../../../docex/document/v1/DocumentRecord.js';

export interface GetDocumentResponseInput {
  'document'?: (_docex_document_v1_DocumentRecordInput | null);
}

export interface GetDocumentResponse {
  'document': (_docex_document_v1_DocumentRecord | null);
}
