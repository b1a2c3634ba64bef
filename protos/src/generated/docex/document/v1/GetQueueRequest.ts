// Original file: document.proto


export interface GetQueueRequestInput {
  /**
   * UUID; resolve humanized ids with ResolveEntity first.
   */
  'queue_id'?: (string);
}

export interface GetQueueRequest {
  /**
   * UUID; resolve humanized ids with ResolveEntity first.
   */
  'queue_id': (string);
}
