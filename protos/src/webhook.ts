import type { GrpcClientOptions } from "@docex/kit/grpc";
import type { WebhookDefinition } from "./generated/docex/webhook/v1/Webhook.js";
import { type Callers, createPromiseClient, type Handlers, loadService, type PromiseClient } from "./service-descriptor.js";

export type { DeleteValidationWebhookRequest } from "./generated/docex/webhook/v1/DeleteValidationWebhookRequest.js";
export type { DescribeValidationTargetsResponse } from "./generated/docex/webhook/v1/DescribeValidationTargetsResponse.js";
export type { RegisterValidationTargetRequest } from "./generated/docex/webhook/v1/RegisterValidationTargetRequest.js";
export type { RegisterValidationTargetResponse } from "./generated/docex/webhook/v1/RegisterValidationTargetResponse.js";
export type { ValidateRequest } from "./generated/docex/webhook/v1/ValidateRequest.js";
export type { ValidateResponse } from "./generated/docex/webhook/v1/ValidateResponse.js";

export const webhookService = loadService<WebhookDefinition>("webhook.proto", "docex.webhook.v1.Webhook");

export type WebhookHandlers = Handlers<WebhookDefinition>;
export type WebhookCallers = Callers<WebhookDefinition>;
export type WebhookClient = PromiseClient<WebhookDefinition>;

export function createWebhookClient(address: string, options: GrpcClientOptions): WebhookClient {
  return createPromiseClient(webhookService, address, options);
}
