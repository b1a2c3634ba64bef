// Written by generate-services.mjs from auth.proto (npm run generate): do not edit.
import type { GrpcClientOptions } from "@docex/kit/grpc";
import { type Callers, createPromiseClient, type Handlers, loadService, type PromiseClient } from "../../service-descriptor.js";
import type { AuthDefinition } from "../docex/auth/v1/Auth.js";

export type { CreateInvitationRequest } from "../docex/auth/v1/CreateInvitationRequest.js";
export type { CreateInvitationResponse } from "../docex/auth/v1/CreateInvitationResponse.js";
export type { FindUserByEmailRequest } from "../docex/auth/v1/FindUserByEmailRequest.js";
export type { FindUserByEmailResponse } from "../docex/auth/v1/FindUserByEmailResponse.js";
export type { GetUserRequest } from "../docex/auth/v1/GetUserRequest.js";
export type { GetUserResponse } from "../docex/auth/v1/GetUserResponse.js";
export type { User } from "../docex/auth/v1/User.js";

export const authService = loadService<AuthDefinition>("auth.proto", "docex.auth.v1.Auth");

export type AuthHandlers = Handlers<AuthDefinition>;
export type AuthCallers = Callers<AuthDefinition>;
export type AuthClient = PromiseClient<AuthDefinition>;

export function createAuthClient(address: string, options: GrpcClientOptions): AuthClient {
  return createPromiseClient<AuthDefinition>(authService, address, options);
}
