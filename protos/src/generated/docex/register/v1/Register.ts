// Original file: register.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { LookupItemsRequestInput as _docex_register_v1_LookupItemsRequestInput, LookupItemsRequest as _docex_register_v1_LookupItemsRequest } from '../../../docex/register/v1/LookupItemsRequest.js';
import type { LookupItemsResponseInput as _docex_register_v1_LookupItemsResponseInput, LookupItemsResponse as _docex_register_v1_LookupItemsResponse } from '../../../docex/register/v1/LookupItemsResponse.js';

/**
 * Registers: reference lists uploaded per queue, and their items.
 */
export interface RegisterClient extends grpc.Client {
  /**
   * Looks items up by value. NOT_FOUND when the register does not exist or belongs to another organization.
   */
  LookupItems(argument: _docex_register_v1_LookupItemsRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_register_v1_LookupItemsResponse>): grpc.ClientUnaryCall;
  LookupItems(argument: _docex_register_v1_LookupItemsRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_register_v1_LookupItemsResponse>): grpc.ClientUnaryCall;
  LookupItems(argument: _docex_register_v1_LookupItemsRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_register_v1_LookupItemsResponse>): grpc.ClientUnaryCall;
  LookupItems(argument: _docex_register_v1_LookupItemsRequestInput, callback: grpc.requestCallback<_docex_register_v1_LookupItemsResponse>): grpc.ClientUnaryCall;
  /**
   * Looks items up by value. NOT_FOUND when the register does not exist or belongs to another organization.
   */
  lookupItems(argument: _docex_register_v1_LookupItemsRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_register_v1_LookupItemsResponse>): grpc.ClientUnaryCall;
  lookupItems(argument: _docex_register_v1_LookupItemsRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_register_v1_LookupItemsResponse>): grpc.ClientUnaryCall;
  lookupItems(argument: _docex_register_v1_LookupItemsRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_register_v1_LookupItemsResponse>): grpc.ClientUnaryCall;
  lookupItems(argument: _docex_register_v1_LookupItemsRequestInput, callback: grpc.requestCallback<_docex_register_v1_LookupItemsResponse>): grpc.ClientUnaryCall;
  
}

/**
 * Registers: reference lists uploaded per queue, and their items.
 */
export interface RegisterHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Looks items up by value. NOT_FOUND when the register does not exist or belongs to another organization.
   */
  LookupItems: grpc.handleUnaryCall<_docex_register_v1_LookupItemsRequest, _docex_register_v1_LookupItemsResponseInput>;
  
}

export interface RegisterDefinition extends grpc.ServiceDefinition {
  LookupItems: MethodDefinition<_docex_register_v1_LookupItemsRequestInput, _docex_register_v1_LookupItemsResponseInput, _docex_register_v1_LookupItemsRequest, _docex_register_v1_LookupItemsResponse>
}
