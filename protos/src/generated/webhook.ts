import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { ValidateRequestInput as _docex_webhook_v1_ValidateRequestInput, ValidateRequest as _docex_webhook_v1_ValidateRequest } from './docex/webhook/v1/ValidateRequest.js';
import type { ValidateResponseInput as _docex_webhook_v1_ValidateResponseInput, ValidateResponse as _docex_webhook_v1_ValidateResponse } from './docex/webhook/v1/ValidateResponse.js';
import type { WebhookClient as _docex_webhook_v1_WebhookClient, WebhookDefinition as _docex_webhook_v1_WebhookDefinition } from './docex/webhook/v1/Webhook.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  docex: {
    webhook: {
      v1: {
        ValidateRequest: MessageTypeDefinition<_docex_webhook_v1_ValidateRequestInput, _docex_webhook_v1_ValidateRequest>
        ValidateResponse: MessageTypeDefinition<_docex_webhook_v1_ValidateResponseInput, _docex_webhook_v1_ValidateResponse>
        /**
         * Integration: webhooks, signing keys, external validation links and deliveries.
         */
        Webhook: SubtypeConstructor<typeof grpc.Client, _docex_webhook_v1_WebhookClient> & { service: _docex_webhook_v1_WebhookDefinition }
      }
    }
  }
}

