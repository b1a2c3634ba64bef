// Original file: document.proto


export interface ResolveInboxResponseInput {
  'queue_id'?: (string);
  'organization_id'?: (string);
  'allowed_senders'?: (string)[];
}

export interface ResolveInboxResponse {
  'queue_id': (string);
  'organization_id': (string);
  'allowed_senders': (string)[];
}
