// Original file: register.proto

import type { RegisterItemInput as _docex_register_v1_RegisterItemInput, RegisterItem as _docex_register_v1_RegisterItem } from '../../../docex/register/v1/RegisterItem.js';

export interface LookupItemsResponseInput {
  /**
   * One per value found, in the order of the request.
   */
  'items'?: (_docex_register_v1_RegisterItemInput)[];
  /**
   * The requested values that are not in the register.
   */
  'missing'?: (string)[];
}

export interface LookupItemsResponse {
  /**
   * One per value found, in the order of the request.
   */
  'items': (_docex_register_v1_RegisterItem)[];
  /**
   * The requested values that are not in the register.
   */
  'missing': (string)[];
}
