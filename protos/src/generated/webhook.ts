import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { DeleteValidationWebhookRequestInput as _docex_webhook_v1_DeleteValidationWebhookRequestInput, DeleteValidationWebhookRequest as _docex_webhook_v1_DeleteValidationWebhookRequest } from './docex/webhook/v1/DeleteValidationWebhookRequest.js';
import type { DeleteValidationWebhookResponseInput as _docex_webhook_v1_DeleteValidationWebhookResponseInput, DeleteValidationWebhookResponse as _docex_webhook_v1_DeleteValidationWebhookResponse } from './docex/webhook/v1/DeleteValidationWebhookResponse.js';
import type { DescribeValidationTargetsRequestInput as _docex_webhook_v1_DescribeValidationTargetsRequestInput, DescribeValidationTargetsRequest as _docex_webhook_v1_DescribeValidationTargetsRequest } from './docex/webhook/v1/DescribeValidationTargetsRequest.js';
import type { DescribeValidationTargetsResponseInput as _docex_webhook_v1_DescribeValidationTargetsResponseInput, DescribeValidationTargetsResponse as _docex_webhook_v1_DescribeValidationTargetsResponse } from './docex/webhook/v1/DescribeValidationTargetsResponse.js';
import type { RegisterValidationTargetRequestInput as _docex_webhook_v1_RegisterValidationTargetRequestInput, RegisterValidationTargetRequest as _docex_webhook_v1_RegisterValidationTargetRequest } from './docex/webhook/v1/RegisterValidationTargetRequest.js';
import type { RegisterValidationTargetResponseInput as _docex_webhook_v1_RegisterValidationTargetResponseInput, RegisterValidationTargetResponse as _docex_webhook_v1_RegisterValidationTargetResponse } from './docex/webhook/v1/RegisterValidationTargetResponse.js';
import type { ValidateRequestInput as _docex_webhook_v1_ValidateRequestInput, ValidateRequest as _docex_webhook_v1_ValidateRequest } from './docex/webhook/v1/ValidateRequest.js';
import type { ValidateResponseInput as _docex_webhook_v1_ValidateResponseInput, ValidateResponse as _docex_webhook_v1_ValidateResponse } from './docex/webhook/v1/ValidateResponse.js';
import type { ValidationTargetDescriptionInput as _docex_webhook_v1_ValidationTargetDescriptionInput, ValidationTargetDescription as _docex_webhook_v1_ValidationTargetDescription } from './docex/webhook/v1/ValidationTargetDescription.js';
import type { WebhookClient as _docex_webhook_v1_WebhookClient, WebhookDefinition as _docex_webhook_v1_WebhookDefinition } from './docex/webhook/v1/Webhook.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  docex: {
    webhook: {
      v1: {
        DeleteValidationWebhookRequest: MessageTypeDefinition<_docex_webhook_v1_DeleteValidationWebhookRequestInput, _docex_webhook_v1_DeleteValidationWebhookRequest>
        DeleteValidationWebhookResponse: MessageTypeDefinition<_docex_webhook_v1_DeleteValidationWebhookResponseInput, _docex_webhook_v1_DeleteValidationWebhookResponse>
        DescribeValidationTargetsRequest: MessageTypeDefinition<_docex_webhook_v1_DescribeValidationTargetsRequestInput, _docex_webhook_v1_DescribeValidationTargetsRequest>
        DescribeValidationTargetsResponse: MessageTypeDefinition<_docex_webhook_v1_DescribeValidationTargetsResponseInput, _docex_webhook_v1_DescribeValidationTargetsResponse>
        RegisterValidationTargetRequest: MessageTypeDefinition<_docex_webhook_v1_RegisterValidationTargetRequestInput, _docex_webhook_v1_RegisterValidationTargetRequest>
        RegisterValidationTargetResponse: MessageTypeDefinition<_docex_webhook_v1_RegisterValidationTargetResponseInput, _docex_webhook_v1_RegisterValidationTargetResponse>
        ValidateRequest: MessageTypeDefinition<_docex_webhook_v1_ValidateRequestInput, _docex_webhook_v1_ValidateRequest>
        ValidateResponse: MessageTypeDefinition<_docex_webhook_v1_ValidateResponseInput, _docex_webhook_v1_ValidateResponse>
        ValidationTargetDescription: MessageTypeDefinition<_docex_webhook_v1_ValidationTargetDescriptionInput, _docex_webhook_v1_ValidationTargetDescription>
        /**
         * Integration: webhooks, signing keys, external validation links and deliveries.
         */
        Webhook: SubtypeConstructor<typeof grpc.Client, _docex_webhook_v1_WebhookClient> & { service: _docex_webhook_v1_WebhookDefinition }
      }
    }
  }
}

