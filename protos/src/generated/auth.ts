import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AuthClient as _docex_auth_v1_AuthClient, AuthDefinition as _docex_auth_v1_AuthDefinition } from './docex/auth/v1/Auth.js';
import type { CreateInvitationRequestInput as _docex_auth_v1_CreateInvitationRequestInput, CreateInvitationRequest as _docex_auth_v1_CreateInvitationRequest } from './docex/auth/v1/CreateInvitationRequest.js';
import type { CreateInvitationResponseInput as _docex_auth_v1_CreateInvitationResponseInput, CreateInvitationResponse as _docex_auth_v1_CreateInvitationResponse } from './docex/auth/v1/CreateInvitationResponse.js';
import type { FindUserByEmailRequestInput as _docex_auth_v1_FindUserByEmailRequestInput, FindUserByEmailRequest as _docex_auth_v1_FindUserByEmailRequest } from './docex/auth/v1/FindUserByEmailRequest.js';
import type { FindUserByEmailResponseInput as _docex_auth_v1_FindUserByEmailResponseInput, FindUserByEmailResponse as _docex_auth_v1_FindUserByEmailResponse } from './docex/auth/v1/FindUserByEmailResponse.js';
import type { GetUserRequestInput as _docex_auth_v1_GetUserRequestInput, GetUserRequest as _docex_auth_v1_GetUserRequest } from './docex/auth/v1/GetUserRequest.js';
import type { GetUserResponseInput as _docex_auth_v1_GetUserResponseInput, GetUserResponse as _docex_auth_v1_GetUserResponse } from './docex/auth/v1/GetUserResponse.js';
import type { UserInput as _docex_auth_v1_UserInput, User as _docex_auth_v1_User } from './docex/auth/v1/User.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  docex: {
    auth: {
      v1: {
        /**
         * Identity: users, and the invitations that create them.
         */
        Auth: SubtypeConstructor<typeof grpc.Client, _docex_auth_v1_AuthClient> & { service: _docex_auth_v1_AuthDefinition }
        CreateInvitationRequest: MessageTypeDefinition<_docex_auth_v1_CreateInvitationRequestInput, _docex_auth_v1_CreateInvitationRequest>
        CreateInvitationResponse: MessageTypeDefinition<_docex_auth_v1_CreateInvitationResponseInput, _docex_auth_v1_CreateInvitationResponse>
        FindUserByEmailRequest: MessageTypeDefinition<_docex_auth_v1_FindUserByEmailRequestInput, _docex_auth_v1_FindUserByEmailRequest>
        FindUserByEmailResponse: MessageTypeDefinition<_docex_auth_v1_FindUserByEmailResponseInput, _docex_auth_v1_FindUserByEmailResponse>
        GetUserRequest: MessageTypeDefinition<_docex_auth_v1_GetUserRequestInput, _docex_auth_v1_GetUserRequest>
        GetUserResponse: MessageTypeDefinition<_docex_auth_v1_GetUserResponseInput, _docex_auth_v1_GetUserResponse>
        User: MessageTypeDefinition<_docex_auth_v1_UserInput, _docex_auth_v1_User>
      }
    }
  }
}

