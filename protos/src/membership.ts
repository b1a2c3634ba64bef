import type { GrpcClientOptions } from "@docex/kit/grpc";
import type { MembershipDefinition } from "./generated/docex/membership/v1/Membership.js";
import { type Callers, createPromiseClient, type Handlers, loadService, type PromiseClient } from "./service-descriptor.js";

export type { AcceptInvitationRequest } from "./generated/docex/membership/v1/AcceptInvitationRequest.js";
export type { AcceptInvitationResponse } from "./generated/docex/membership/v1/AcceptInvitationResponse.js";
export type { CheckPermissionRequest } from "./generated/docex/membership/v1/CheckPermissionRequest.js";
export type { CheckPermissionResponse } from "./generated/docex/membership/v1/CheckPermissionResponse.js";
export type { CreateOrganizationRequest } from "./generated/docex/membership/v1/CreateOrganizationRequest.js";
export type { CreateOrganizationResponse } from "./generated/docex/membership/v1/CreateOrganizationResponse.js";
export type { GetOrganizationRequest } from "./generated/docex/membership/v1/GetOrganizationRequest.js";
export type { GetOrganizationResponse } from "./generated/docex/membership/v1/GetOrganizationResponse.js";
export type { GetRolesRequest } from "./generated/docex/membership/v1/GetRolesRequest.js";
export type { GetRolesResponse } from "./generated/docex/membership/v1/GetRolesResponse.js";
export type { GetUserSchemaRequest } from "./generated/docex/membership/v1/GetUserSchemaRequest.js";
export type { GetUserSchemaResponse } from "./generated/docex/membership/v1/GetUserSchemaResponse.js";
export type { ListOrganizationsOfUserRequest } from "./generated/docex/membership/v1/ListOrganizationsOfUserRequest.js";
export type { ListOrganizationsOfUserResponse } from "./generated/docex/membership/v1/ListOrganizationsOfUserResponse.js";
export type { Organization } from "./generated/docex/membership/v1/Organization.js";
export type { UserSchemaField } from "./generated/docex/membership/v1/UserSchemaField.js";

export const membershipService = loadService<MembershipDefinition>("membership.proto", "docex.membership.v1.Membership");

export type MembershipHandlers = Handlers<MembershipDefinition>;
export type MembershipCallers = Callers<MembershipDefinition>;
export type MembershipClient = PromiseClient<MembershipDefinition>;

export function createMembershipClient(address: string, options: GrpcClientOptions): MembershipClient {
  return createPromiseClient(membershipService, address, options);
}
