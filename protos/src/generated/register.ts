import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { LookupItemsRequestInput as _docex_register_v1_LookupItemsRequestInput, LookupItemsRequest as _docex_register_v1_LookupItemsRequest } from './docex/register/v1/LookupItemsRequest.js';
import type { LookupItemsResponseInput as _docex_register_v1_LookupItemsResponseInput, LookupItemsResponse as _docex_register_v1_LookupItemsResponse } from './docex/register/v1/LookupItemsResponse.js';
import type { RegisterClient as _docex_register_v1_RegisterClient, RegisterDefinition as _docex_register_v1_RegisterDefinition } from './docex/register/v1/Register.js';
import type { RegisterItemInput as _docex_register_v1_RegisterItemInput, RegisterItem as _docex_register_v1_RegisterItem } from './docex/register/v1/RegisterItem.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  docex: {
    register: {
      v1: {
        LookupItemsRequest: MessageTypeDefinition<_docex_register_v1_LookupItemsRequestInput, _docex_register_v1_LookupItemsRequest>
        LookupItemsResponse: MessageTypeDefinition<_docex_register_v1_LookupItemsResponseInput, _docex_register_v1_LookupItemsResponse>
        /**
         * Registers: reference lists uploaded per queue, and their items.
         */
        Register: SubtypeConstructor<typeof grpc.Client, _docex_register_v1_RegisterClient> & { service: _docex_register_v1_RegisterDefinition }
        RegisterItem: MessageTypeDefinition<_docex_register_v1_RegisterItemInput, _docex_register_v1_RegisterItem>
      }
    }
  }
}

