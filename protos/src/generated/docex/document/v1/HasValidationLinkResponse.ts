// Original file: document.proto


export interface HasValidationLinkResponseInput {
  'exists'?: (boolean);
}

export interface HasValidationLinkResponse {
  'exists': (boolean);
}
