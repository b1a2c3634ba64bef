// Original file: auth.proto

import type { UserInput as _docex_auth_v1_UserInput, User as _docex_auth_v1_User } from '../../../docex/auth/v1/User.js';

export interface GetUserResponseInput {
  'user'?: (_docex_auth_v1_UserInput | null);
}

export interface GetUserResponse {
  'user': (_docex_auth_v1_User | null);
}
