// Original file: membership.proto

import type { OrganizationInput as _docex_membership_v1_OrganizationInput, Organization as _docex_membership_v1_Organization } from '../../../docex/membership/v1/Organization.js';

export interface GetOrganizationResponseInput {
  'organization'?: (_docex_membership_v1_OrganizationInput | null);
}

export interface GetOrganizationResponse {
  'organization': (_docex_membership_v1_Organization | null);
}
