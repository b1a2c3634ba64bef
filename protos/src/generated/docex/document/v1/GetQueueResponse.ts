// Original file: document.proto

import type { QueueInput as _docex_document_v1_QueueInput, Queue as _docex_document_v1_Queue } from '../../../docex/document/v1/Queue.js';

export interface GetQueueResponseInput {
  'queue'?: (_docex_document_v1_QueueInput | null);
}

export interface GetQueueResponse {
  'queue': (_docex_document_v1_Queue | null);
}
