import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AcceptInvitationRequestInput as _docex_membership_v1_AcceptInvitationRequestInput, AcceptInvitationRequest as _docex_membership_v1_AcceptInvitationRequest } from './docex/membership/v1/AcceptInvitationRequest.js';
import type { AcceptInvitationResponseInput as _docex_membership_v1_AcceptInvitationResponseInput, AcceptInvitationResponse as _docex_membership_v1_AcceptInvitationResponse } from './docex/membership/v1/AcceptInvitationResponse.js';
import type { CheckPermissionRequestInput as _docex_membership_v1_CheckPermissionRequestInput, CheckPermissionRequest as _docex_membership_v1_CheckPermissionRequest } from './docex/membership/v1/CheckPermissionRequest.js';
import type { CheckPermissionResponseInput as _docex_membership_v1_CheckPermissionResponseInput, CheckPermissionResponse as _docex_membership_v1_CheckPermissionResponse } from './docex/membership/v1/CheckPermissionResponse.js';
import type { CreateOrganizationRequestInput as _docex_membership_v1_CreateOrganizationRequestInput, CreateOrganizationRequest as _docex_membership_v1_CreateOrganizationRequest } from './docex/membership/v1/CreateOrganizationRequest.js';
import type { CreateOrganizationResponseInput as _docex_membership_v1_CreateOrganizationResponseInput, CreateOrganizationResponse as _docex_membership_v1_CreateOrganizationResponse } from './docex/membership/v1/CreateOrganizationResponse.js';
import type { GetOrganizationRequestInput as _docex_membership_v1_GetOrganizationRequestInput, GetOrganizationRequest as _docex_membership_v1_GetOrganizationRequest } from './docex/membership/v1/GetOrganizationRequest.js';
import type { GetOrganizationResponseInput as _docex_membership_v1_GetOrganizationResponseInput, GetOrganizationResponse as _docex_membership_v1_GetOrganizationResponse } from './docex/membership/v1/GetOrganizationResponse.js';
import type { GetRolesRequestInput as _docex_membership_v1_GetRolesRequestInput, GetRolesRequest as _docex_membership_v1_GetRolesRequest } from './docex/membership/v1/GetRolesRequest.js';
import type { GetRolesResponseInput as _docex_membership_v1_GetRolesResponseInput, GetRolesResponse as _docex_membership_v1_GetRolesResponse } from './docex/membership/v1/GetRolesResponse.js';
import type { GetUserSchemaRequestInput as _docex_membership_v1_GetUserSchemaRequestInput, GetUserSchemaRequest as _docex_membership_v1_GetUserSchemaRequest } from './docex/membership/v1/GetUserSchemaRequest.js';
import type { GetUserSchemaResponseInput as _docex_membership_v1_GetUserSchemaResponseInput, GetUserSchemaResponse as _docex_membership_v1_GetUserSchemaResponse } from './docex/membership/v1/GetUserSchemaResponse.js';
import type { ListOrganizationsOfUserRequestInput as _docex_membership_v1_ListOrganizationsOfUserRequestInput, ListOrganizationsOfUserRequest as _docex_membership_v1_ListOrganizationsOfUserRequest } from './docex/membership/v1/ListOrganizationsOfUserRequest.js';
import type { ListOrganizationsOfUserResponseInput as _docex_membership_v1_ListOrganizationsOfUserResponseInput, ListOrganizationsOfUserResponse as _docex_membership_v1_ListOrganizationsOfUserResponse } from './docex/membership/v1/ListOrganizationsOfUserResponse.js';
import type { MembershipClient as _docex_membership_v1_MembershipClient, MembershipDefinition as _docex_membership_v1_MembershipDefinition } from './docex/membership/v1/Membership.js';
import type { OrganizationInput as _docex_membership_v1_OrganizationInput, Organization as _docex_membership_v1_Organization } from './docex/membership/v1/Organization.js';
import type { UserSchemaFieldInput as _docex_membership_v1_UserSchemaFieldInput, UserSchemaField as _docex_membership_v1_UserSchemaField } from './docex/membership/v1/UserSchemaField.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  docex: {
    membership: {
      v1: {
        AcceptInvitationRequest: MessageTypeDefinition<_docex_membership_v1_AcceptInvitationRequestInput, _docex_membership_v1_AcceptInvitationRequest>
        AcceptInvitationResponse: MessageTypeDefinition<_docex_membership_v1_AcceptInvitationResponseInput, _docex_membership_v1_AcceptInvitationResponse>
        CheckPermissionRequest: MessageTypeDefinition<_docex_membership_v1_CheckPermissionRequestInput, _docex_membership_v1_CheckPermissionRequest>
        CheckPermissionResponse: MessageTypeDefinition<_docex_membership_v1_CheckPermissionResponseInput, _docex_membership_v1_CheckPermissionResponse>
        CreateOrganizationRequest: MessageTypeDefinition<_docex_membership_v1_CreateOrganizationRequestInput, _docex_membership_v1_CreateOrganizationRequest>
        CreateOrganizationResponse: MessageTypeDefinition<_docex_membership_v1_CreateOrganizationResponseInput, _docex_membership_v1_CreateOrganizationResponse>
        GetOrganizationRequest: MessageTypeDefinition<_docex_membership_v1_GetOrganizationRequestInput, _docex_membership_v1_GetOrganizationRequest>
        GetOrganizationResponse: MessageTypeDefinition<_docex_membership_v1_GetOrganizationResponseInput, _docex_membership_v1_GetOrganizationResponse>
        GetRolesRequest: MessageTypeDefinition<_docex_membership_v1_GetRolesRequestInput, _docex_membership_v1_GetRolesRequest>
        GetRolesResponse: MessageTypeDefinition<_docex_membership_v1_GetRolesResponseInput, _docex_membership_v1_GetRolesResponse>
        GetUserSchemaRequest: MessageTypeDefinition<_docex_membership_v1_GetUserSchemaRequestInput, _docex_membership_v1_GetUserSchemaRequest>
        GetUserSchemaResponse: MessageTypeDefinition<_docex_membership_v1_GetUserSchemaResponseInput, _docex_membership_v1_GetUserSchemaResponse>
        ListOrganizationsOfUserRequest: MessageTypeDefinition<_docex_membership_v1_ListOrganizationsOfUserRequestInput, _docex_membership_v1_ListOrganizationsOfUserRequest>
        ListOrganizationsOfUserResponse: MessageTypeDefinition<_docex_membership_v1_ListOrganizationsOfUserResponseInput, _docex_membership_v1_ListOrganizationsOfUserResponse>
        /**
         * People and roles: organizations, memberships, roles and user annotation schemas.
         */
        Membership: SubtypeConstructor<typeof grpc.Client, _docex_membership_v1_MembershipClient> & { service: _docex_membership_v1_MembershipDefinition }
        Organization: MessageTypeDefinition<_docex_membership_v1_OrganizationInput, _docex_membership_v1_Organization>
        UserSchemaField: MessageTypeDefinition<_docex_membership_v1_UserSchemaFieldInput, _docex_membership_v1_UserSchemaField>
      }
    }
  }
}

