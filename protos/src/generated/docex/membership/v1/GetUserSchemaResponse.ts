// Original file: membership.proto

import type { UserSchemaFieldInput as _docex_membership_v1_UserSchemaFieldInput, UserSchemaField as _docex_membership_v1_UserSchemaField } from '../../../docex/membership/v1/UserSchemaField.js';

export interface GetUserSchemaResponseInput {
  /**
   * Only the keys with a rule; a key not listed is visible and editable.
   */
  'fields'?: (_docex_membership_v1_UserSchemaFieldInput)[];
}

export interface GetUserSchemaResponse {
  /**
   * Only the keys with a rule; a key not listed is visible and editable.
   */
  'fields': (_docex_membership_v1_UserSchemaField)[];
}
