// Original file: automation.proto


export interface GetQueueAutomationRequestInput {
  'queue_id'?: (string);
}

export interface GetQueueAutomationRequest {
  'queue_id': (string);
}
