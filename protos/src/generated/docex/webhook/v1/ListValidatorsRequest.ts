// Original file: webhook.proto


export interface ListValidatorsRequestInput {
  /**
   * The `key` of the last validator of the previous page; empty for the first page.
   */
  'after'?: (string);
  /**
   * Validators per page, 1 to 1000.
   */
  'limit'?: (number);
}

export interface ListValidatorsRequest {
  /**
   * The `key` of the last validator of the previous page; empty for the first page.
   */
  'after': (string);
  /**
   * Validators per page, 1 to 1000.
   */
  'limit': (number);
}
