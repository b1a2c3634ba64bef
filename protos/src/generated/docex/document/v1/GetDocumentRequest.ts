// Original file: document.proto


export interface GetDocumentRequestInput {
  'document_id'?: (string);
}

export interface GetDocumentRequest {
  'document_id': (string);
}
