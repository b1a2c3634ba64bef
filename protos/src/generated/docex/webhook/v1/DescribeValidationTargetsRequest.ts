// Original file: webhook.proto


export interface DescribeValidationTargetsRequestInput {
  'organization_id'?: (string);
  /**
   * At most 100.
   */
  'target_ids'?: (string)[];
}

export interface DescribeValidationTargetsRequest {
  'organization_id': (string);
  /**
   * At most 100.
   */
  'target_ids': (string)[];
}
