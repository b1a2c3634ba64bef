// Original file: membership.proto


export interface ListOrganizationsOfUserRequestInput {
  'user_id'?: (string);
}

export interface ListOrganizationsOfUserRequest {
  'user_id': (string);
}
