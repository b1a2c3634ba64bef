// Original file: learning.proto

import type { SuggestedFieldInput as _docex_learning_v1_SuggestedFieldInput, SuggestedField as _docex_learning_v1_SuggestedField } from '../../../docex/learning/v1/SuggestedField.js';

export interface SuggestResponseInput {
  'fields'?: (_docex_learning_v1_SuggestedFieldInput)[];
  /**
   * "visible" | "hidden"; empty when nothing was learned.
   */
  'line_items_visibility'?: (string);
  /**
   * "visible" | "hidden"; empty when nothing was learned.
   */
  'tax_detail_visibility'?: (string);
}

export interface SuggestResponse {
  'fields': (_docex_learning_v1_SuggestedField)[];
  /**
   * "visible" | "hidden"; empty when nothing was learned.
   */
  'line_items_visibility': (string);
  /**
   * "visible" | "hidden"; empty when nothing was learned.
   */
  'tax_detail_visibility': (string);
}
