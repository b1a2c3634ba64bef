// Original file: membership.proto

import type { OrganizationInput as _docex_membership_v1_OrganizationInput, Organization as _docex_membership_v1_Organization } from '../../../docex/membership/v1/Organization.js';

export interface AcceptInvitationResponseInput {
  'organization'?: (_docex_membership_v1_OrganizationInput | null);
  /**
   * False when the membership was accepted before.
   */
  'accepted'?: (boolean);
}

export interface AcceptInvitationResponse {
  'organization': (_docex_membership_v1_Organization | null);
  /**
   * False when the membership was accepted before.
   */
  'accepted': (boolean);
}
