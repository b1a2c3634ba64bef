// Written by generate-services.mjs from webhook.proto (npm run generate): do not edit.
import type { GrpcClientOptions } from "@docex/kit/grpc";
import { type Callers, createPromiseClient, type Handlers, loadService, type PromiseClient } from "../../service-descriptor.js";
import type { WebhookDefinition } from "../docex/webhook/v1/Webhook.js";

export type { DeleteValidationWebhookRequest } from "../docex/webhook/v1/DeleteValidationWebhookRequest.js";
export type { DeleteValidationWebhookResponse } from "../docex/webhook/v1/DeleteValidationWebhookResponse.js";
export type { DescribeValidationTargetsRequest } from "../docex/webhook/v1/DescribeValidationTargetsRequest.js";
export type { DescribeValidationTargetsResponse } from "../docex/webhook/v1/DescribeValidationTargetsResponse.js";
export type { RegisterValidationTargetRequest } from "../docex/webhook/v1/RegisterValidationTargetRequest.js";
export type { RegisterValidationTargetResponse } from "../docex/webhook/v1/RegisterValidationTargetResponse.js";
export type { ValidateRequest } from "../docex/webhook/v1/ValidateRequest.js";
export type { ValidateResponse } from "../docex/webhook/v1/ValidateResponse.js";
export type { ValidationTargetDescription } from "../docex/webhook/v1/ValidationTargetDescription.js";

export const webhookService = loadService<WebhookDefinition>("webhook.proto", "docex.webhook.v1.Webhook");

export type WebhookHandlers = Handlers<WebhookDefinition>;
export type WebhookCallers = Callers<WebhookDefinition>;
export type WebhookClient = PromiseClient<WebhookDefinition>;

export function createWebhookClient(address: string, options: GrpcClientOptions): WebhookClient {
  return createPromiseClient<WebhookDefinition>(webhookService, address, options);
}
