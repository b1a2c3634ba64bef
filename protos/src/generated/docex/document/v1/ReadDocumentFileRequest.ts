// Original file: document.proto


export interface ReadDocumentFileRequestInput {
  /**
   * The document's organization; another organization's document is NOT_FOUND.
   */
  'organization_id'?: (string);
  'document_id'?: (string);
}

export interface ReadDocumentFileRequest {
  /**
   * The document's organization; another organization's document is NOT_FOUND.
   */
  'organization_id': (string);
  'document_id': (string);
}
