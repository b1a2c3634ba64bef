// Original file: membership.proto


export interface GetOrganizationRequestInput {
  'id_or_humanized'?: (string);
}

export interface GetOrganizationRequest {
  'id_or_humanized': (string);
}
