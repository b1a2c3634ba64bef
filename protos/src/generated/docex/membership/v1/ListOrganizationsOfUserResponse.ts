// Original file: membership.proto

import type { OrganizationInput as _docex_membership_v1_OrganizationInput, Organization as _docex_membership_v1_Organization } from '../../../docex/membership/v1/Organization.js';

export interface ListOrganizationsOfUserResponseInput {
  'organizations'?: (_docex_membership_v1_OrganizationInput)[];
}

export interface ListOrganizationsOfUserResponse {
  'organizations': (_docex_membership_v1_Organization)[];
}
