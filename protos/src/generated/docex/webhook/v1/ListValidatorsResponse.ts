// Original file: webhook.proto

import type { ValidatorInput as _docex_webhook_v1_ValidatorInput, Validator as _docex_webhook_v1_Validator } from '../../../docex/webhook/v1/Validator.js';

export interface ListValidatorsResponseInput {
  'validators'?: (_docex_webhook_v1_ValidatorInput)[];
  /**
   * True when more validators follow the last one of this page.
   */
  'more'?: (boolean);
}

export interface ListValidatorsResponse {
  'validators': (_docex_webhook_v1_Validator)[];
  /**
   * True when more validators follow the last one of this page.
   */
  'more': (boolean);
}
