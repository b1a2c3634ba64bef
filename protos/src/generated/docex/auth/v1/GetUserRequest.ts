// Original file: auth.proto


export interface GetUserRequestInput {
  'user_id'?: (string);
}

export interface GetUserRequest {
  'user_id': (string);
}
