// Written by generate-services.mjs from register.proto (npm run generate): do not edit.
import type { GrpcClientOptions } from "@docex/kit/grpc";
import { type Callers, createPromiseClient, type Handlers, loadService, type PromiseClient } from "../../service-descriptor.js";
import type { RegisterDefinition } from "../docex/register/v1/Register.js";

export type { LookupItemsRequest } from "../docex/register/v1/LookupItemsRequest.js";
export type { LookupItemsResponse } from "../docex/register/v1/LookupItemsResponse.js";
export type { RegisterItem } from "../docex/register/v1/RegisterItem.js";

export const registerService = loadService<RegisterDefinition>("register.proto", "docex.register.v1.Register");

export type RegisterHandlers = Handlers<RegisterDefinition>;
export type RegisterCallers = Callers<RegisterDefinition>;
export type RegisterClient = PromiseClient<RegisterDefinition>;

export function createRegisterClient(address: string, options: GrpcClientOptions): RegisterClient {
  return createPromiseClient<RegisterDefinition>(registerService, address, options);
}
