// Original file: webhook.proto

import type { ValidationTargetDescriptionInput as _docex_webhook_v1_ValidationTargetDescriptionInput, ValidationTargetDescription as _docex_webhook_v1_ValidationTargetDescription } from '../../../docex/webhook/v1/ValidationTargetDescription.js';

export interface DescribeValidationTargetsResponseInput {
  'targets'?: (_docex_webhook_v1_ValidationTargetDescriptionInput)[];
}

export interface DescribeValidationTargetsResponse {
  'targets': (_docex_webhook_v1_ValidationTargetDescription)[];
}
