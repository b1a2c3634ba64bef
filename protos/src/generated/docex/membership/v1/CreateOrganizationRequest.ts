// Original file: membership.proto


export interface CreateOrganizationRequestInput {
  'name'?: (string);
  /**
   * Lowercase slug; absent derives one from name.
   */
  'humanized_id'?: (string);
  'owner_user_id'?: (string);
  /**
   * Required; e.g. "onboarding:<user_id>" from auth.
   */
  'idempotency_key'?: (string);
  '_humanized_id'?: "humanized_id";
}

export interface CreateOrganizationRequest {
  'name': (string);
  /**
   * Lowercase slug; absent derives one from name.
   */
  'humanized_id'?: (string);
  'owner_user_id': (string);
  /**
   * Required; e.g. "onboarding:<user_id>" from auth.
   */
  'idempotency_key': (string);
  '_humanized_id'?: "humanized_id";
}
