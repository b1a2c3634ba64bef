// Written by generate-services.mjs from membership.proto (npm run generate): do not edit.
import type { GrpcClientOptions } from "@docex/kit/grpc";
import { type Callers, createPromiseClient, type Handlers, loadService, type PromiseClient } from "../../service-descriptor.js";
import type { MembershipDefinition } from "../docex/membership/v1/Membership.js";

export type { AcceptInvitationRequest } from "../docex/membership/v1/AcceptInvitationRequest.js";
export type { AcceptInvitationResponse } from "../docex/membership/v1/AcceptInvitationResponse.js";
export type { CheckPermissionRequest } from "../docex/membership/v1/CheckPermissionRequest.js";
export type { CheckPermissionResponse } from "../docex/membership/v1/CheckPermissionResponse.js";
export type { CreateOrganizationRequest } from "../docex/membership/v1/CreateOrganizationRequest.js";
export type { CreateOrganizationResponse } from "../docex/membership/v1/CreateOrganizationResponse.js";
export type { GetOrganizationRequest } from "../docex/membership/v1/GetOrganizationRequest.js";
export type { GetOrganizationResponse } from "../docex/membership/v1/GetOrganizationResponse.js";
export type { GetRolesRequest } from "../docex/membership/v1/GetRolesRequest.js";
export type { GetRolesResponse } from "../docex/membership/v1/GetRolesResponse.js";
export type { GetUserSchemaRequest } from "../docex/membership/v1/GetUserSchemaRequest.js";
export type { GetUserSchemaResponse } from "../docex/membership/v1/GetUserSchemaResponse.js";
export type { ListOrganizationsOfUserRequest } from "../docex/membership/v1/ListOrganizationsOfUserRequest.js";
export type { ListOrganizationsOfUserResponse } from "../docex/membership/v1/ListOrganizationsOfUserResponse.js";
export type { Organization } from "../docex/membership/v1/Organization.js";
export type { UserSchemaField } from "../docex/membership/v1/UserSchemaField.js";

export const membershipService = loadService<MembershipDefinition>("membership.proto", "docex.membership.v1.Membership");

export type MembershipHandlers = Handlers<MembershipDefinition>;
export type MembershipCallers = Callers<MembershipDefinition>;
export type MembershipClient = PromiseClient<MembershipDefinition>;

export function createMembershipClient(address: string, options: GrpcClientOptions): MembershipClient {
  return createPromiseClient<MembershipDefinition>(membershipService, address, options);
}
