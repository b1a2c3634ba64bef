// Original file: document.proto


export interface ResolveInboxRequestInput {
  /**
   * The whole recipient address, e.g. "acme-invoices.0123456789abcdef@docex.test".
   */
  'address'?: (string);
}

export interface ResolveInboxRequest {
  /**
   * The whole recipient address, e.g. "acme-invoices.0123456789abcdef@docex.test".
   */
  'address': (string);
}
