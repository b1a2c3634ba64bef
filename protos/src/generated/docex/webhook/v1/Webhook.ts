// Original file: webhook.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DeleteValidationWebhookRequestInput as _docex_webhook_v1_DeleteValidationWebhookRequestInput, DeleteValidationWebhookRequest as _docex_webhook_v1_DeleteValidationWebhookRequest } from '../../../docex/webhook/v1/DeleteValidationWebhookRequest.js';
import type { DeleteValidationWebhookResponseInput as _docex_webhook_v1_DeleteValidationWebhookResponseInput, DeleteValidationWebhookResponse as _docex_webhook_v1_DeleteValidationWebhookResponse } from '../../../docex/webhook/v1/DeleteValidationWebhookResponse.js';
import type { DescribeValidationTargetsRequestInput as _docex_webhook_v1_DescribeValidationTargetsRequestInput, DescribeValidationTargetsRequest as _docex_webhook_v1_DescribeValidationTargetsRequest } from '../../../docex/webhook/v1/DescribeValidationTargetsRequest.js';
import type { DescribeValidationTargetsResponseInput as _docex_webhook_v1_DescribeValidationTargetsResponseInput, DescribeValidationTargetsResponse as _docex_webhook_v1_DescribeValidationTargetsResponse } from '../../../docex/webhook/v1/DescribeValidationTargetsResponse.js';
import type { RegisterValidationTargetRequestInput as _docex_webhook_v1_RegisterValidationTargetRequestInput, RegisterValidationTargetRequest as _docex_webhook_v1_RegisterValidationTargetRequest } from '../../../docex/webhook/v1/RegisterValidationTargetRequest.js';
import type { RegisterValidationTargetResponseInput as _docex_webhook_v1_RegisterValidationTargetResponseInput, RegisterValidationTargetResponse as _docex_webhook_v1_RegisterValidationTargetResponse } from '../../../docex/webhook/v1/RegisterValidationTargetResponse.js';
import type { ValidateRequestInput as _docex_webhook_v1_ValidateRequestInput, ValidateRequest as _docex_webhook_v1_ValidateRequest } from '../../../docex/webhook/v1/ValidateRequest.js';
import type { ValidateResponseInput as _docex_webhook_v1_ValidateResponseInput, ValidateResponse as _docex_webhook_v1_ValidateResponse } from '../../../docex/webhook/v1/ValidateResponse.js';

/**
 * Integration: webhooks, signing keys, external validation links and deliveries.
 */
export interface WebhookClient extends grpc.Client {
  /**
   * Deletes a validation webhook of the deprecated API that the document service replaced (a queue's link of its type
   * was saved or deleted). Idempotent: a webhook that is gone, of another organization or not of a validation type is
   * left alone and answered the same. Publishes the webhook's configuration.changed (deleted) when it deletes one.
   */
  DeleteValidationWebhook(argument: _docex_webhook_v1_DeleteValidationWebhookRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_DeleteValidationWebhookResponse>): grpc.ClientUnaryCall;
  DeleteValidationWebhook(argument: _docex_webhook_v1_DeleteValidationWebhookRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_webhook_v1_DeleteValidationWebhookResponse>): grpc.ClientUnaryCall;
  DeleteValidationWebhook(argument: _docex_webhook_v1_DeleteValidationWebhookRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_DeleteValidationWebhookResponse>): grpc.ClientUnaryCall;
  DeleteValidationWebhook(argument: _docex_webhook_v1_DeleteValidationWebhookRequestInput, callback: grpc.requestCallback<_docex_webhook_v1_DeleteValidationWebhookResponse>): grpc.ClientUnaryCall;
  /**
   * Deletes a validation webhook of the deprecated API that the document service replaced (a queue's link of its type
   * was saved or deleted). Idempotent: a webhook that is gone, of another organization or not of a validation type is
   * left alone and answered the same. Publishes the webhook's configuration.changed (deleted) when it deletes one.
   */
  deleteValidationWebhook(argument: _docex_webhook_v1_DeleteValidationWebhookRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_DeleteValidationWebhookResponse>): grpc.ClientUnaryCall;
  deleteValidationWebhook(argument: _docex_webhook_v1_DeleteValidationWebhookRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_webhook_v1_DeleteValidationWebhookResponse>): grpc.ClientUnaryCall;
  deleteValidationWebhook(argument: _docex_webhook_v1_DeleteValidationWebhookRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_DeleteValidationWebhookResponse>): grpc.ClientUnaryCall;
  deleteValidationWebhook(argument: _docex_webhook_v1_DeleteValidationWebhookRequestInput, callback: grpc.requestCallback<_docex_webhook_v1_DeleteValidationWebhookResponse>): grpc.ClientUnaryCall;
  
  /**
   * What the organization's targets call, for listing them: the URL (whole and masked) and the signing setting. Ids of
   * other organizations, and ids that name nothing, are left out of the answer.
   */
  DescribeValidationTargets(argument: _docex_webhook_v1_DescribeValidationTargetsRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_DescribeValidationTargetsResponse>): grpc.ClientUnaryCall;
  DescribeValidationTargets(argument: _docex_webhook_v1_DescribeValidationTargetsRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_webhook_v1_DescribeValidationTargetsResponse>): grpc.ClientUnaryCall;
  DescribeValidationTargets(argument: _docex_webhook_v1_DescribeValidationTargetsRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_DescribeValidationTargetsResponse>): grpc.ClientUnaryCall;
  DescribeValidationTargets(argument: _docex_webhook_v1_DescribeValidationTargetsRequestInput, callback: grpc.requestCallback<_docex_webhook_v1_DescribeValidationTargetsResponse>): grpc.ClientUnaryCall;
  /**
   * What the organization's targets call, for listing them: the URL (whole and masked) and the signing setting. Ids of
   * other organizations, and ids that name nothing, are left out of the answer.
   */
  describeValidationTargets(argument: _docex_webhook_v1_DescribeValidationTargetsRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_DescribeValidationTargetsResponse>): grpc.ClientUnaryCall;
  describeValidationTargets(argument: _docex_webhook_v1_DescribeValidationTargetsRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_webhook_v1_DescribeValidationTargetsResponse>): grpc.ClientUnaryCall;
  describeValidationTargets(argument: _docex_webhook_v1_DescribeValidationTargetsRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_DescribeValidationTargetsResponse>): grpc.ClientUnaryCall;
  describeValidationTargets(argument: _docex_webhook_v1_DescribeValidationTargetsRequestInput, callback: grpc.requestCallback<_docex_webhook_v1_DescribeValidationTargetsResponse>): grpc.ClientUnaryCall;
  
  /**
   * Registers a receiver of validation calls for an organization: the URL (checked against the SSRF rules) and whether
   * calls and answers are signed. A target never changes: a new URL or signing setting is a new target, so a caller that
   * commits the returned id with its own configuration never points at a half-made change. Validate then calls it by id.
   * INVALID_ARGUMENT: the URL is malformed or refused; FAILED_PRECONDITION (reason signing_key_missing): signing on
   * without the organization's key.
   */
  RegisterValidationTarget(argument: _docex_webhook_v1_RegisterValidationTargetRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_RegisterValidationTargetResponse>): grpc.ClientUnaryCall;
  RegisterValidationTarget(argument: _docex_webhook_v1_RegisterValidationTargetRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_webhook_v1_RegisterValidationTargetResponse>): grpc.ClientUnaryCall;
  RegisterValidationTarget(argument: _docex_webhook_v1_RegisterValidationTargetRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_RegisterValidationTargetResponse>): grpc.ClientUnaryCall;
  RegisterValidationTarget(argument: _docex_webhook_v1_RegisterValidationTargetRequestInput, callback: grpc.requestCallback<_docex_webhook_v1_RegisterValidationTargetResponse>): grpc.ClientUnaryCall;
  /**
   * Registers a receiver of validation calls for an organization: the URL (checked against the SSRF rules) and whether
   * calls and answers are signed. A target never changes: a new URL or signing setting is a new target, so a caller that
   * commits the returned id with its own configuration never points at a half-made change. Validate then calls it by id.
   * INVALID_ARGUMENT: the URL is malformed or refused; FAILED_PRECONDITION (reason signing_key_missing): signing on
   * without the organization's key.
   */
  registerValidationTarget(argument: _docex_webhook_v1_RegisterValidationTargetRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_RegisterValidationTargetResponse>): grpc.ClientUnaryCall;
  registerValidationTarget(argument: _docex_webhook_v1_RegisterValidationTargetRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_webhook_v1_RegisterValidationTargetResponse>): grpc.ClientUnaryCall;
  registerValidationTarget(argument: _docex_webhook_v1_RegisterValidationTargetRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_RegisterValidationTargetResponse>): grpc.ClientUnaryCall;
  registerValidationTarget(argument: _docex_webhook_v1_RegisterValidationTargetRequestInput, callback: grpc.requestCallback<_docex_webhook_v1_RegisterValidationTargetResponse>): grpc.ClientUnaryCall;
  
  /**
   * Calls the queue's external validation link (or a deprecated validation webhook) and returns its answer.
   * Failures of the receiver are outcomes, not errors, so the caller can save the edit and warn the user.
   */
  Validate(argument: _docex_webhook_v1_ValidateRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_ValidateResponse>): grpc.ClientUnaryCall;
  Validate(argument: _docex_webhook_v1_ValidateRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_webhook_v1_ValidateResponse>): grpc.ClientUnaryCall;
  Validate(argument: _docex_webhook_v1_ValidateRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_ValidateResponse>): grpc.ClientUnaryCall;
  Validate(argument: _docex_webhook_v1_ValidateRequestInput, callback: grpc.requestCallback<_docex_webhook_v1_ValidateResponse>): grpc.ClientUnaryCall;
  /**
   * Calls the queue's external validation link (or a deprecated validation webhook) and returns its answer.
   * Failures of the receiver are outcomes, not errors, so the caller can save the edit and warn the user.
   */
  validate(argument: _docex_webhook_v1_ValidateRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_ValidateResponse>): grpc.ClientUnaryCall;
  validate(argument: _docex_webhook_v1_ValidateRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_webhook_v1_ValidateResponse>): grpc.ClientUnaryCall;
  validate(argument: _docex_webhook_v1_ValidateRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_ValidateResponse>): grpc.ClientUnaryCall;
  validate(argument: _docex_webhook_v1_ValidateRequestInput, callback: grpc.requestCallback<_docex_webhook_v1_ValidateResponse>): grpc.ClientUnaryCall;
  
}

/**
 * Integration: webhooks, signing keys, external validation links and deliveries.
 */
export interface WebhookHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Deletes a validation webhook of the deprecated API that the document service replaced (a queue's link of its type
   * was saved or deleted). Idempotent: a webhook that is gone, of another organization or not of a validation type is
   * left alone and answered the same. Publishes the webhook's configuration.changed (deleted) when it deletes one.
   */
  DeleteValidationWebhook: grpc.handleUnaryCall<_docex_webhook_v1_DeleteValidationWebhookRequest, _docex_webhook_v1_DeleteValidationWebhookResponseInput>;
  
  /**
   * What the organization's targets call, for listing them: the URL (whole and masked) and the signing setting. Ids of
   * other organizations, and ids that name nothing, are left out of the answer.
   */
  DescribeValidationTargets: grpc.handleUnaryCall<_docex_webhook_v1_DescribeValidationTargetsRequest, _docex_webhook_v1_DescribeValidationTargetsResponseInput>;
  
  /**
   * Registers a receiver of validation calls for an organization: the URL (checked against the SSRF rules) and whether
   * calls and answers are signed. A target never changes: a new URL or signing setting is a new target, so a caller that
   * commits the returned id with its own configuration never points at a half-made change. Validate then calls it by id.
   * INVALID_ARGUMENT: the URL is malformed or refused; FAILED_PRECONDITION (reason signing_key_missing): signing on
   * without the organization's key.
   */
  RegisterValidationTarget: grpc.handleUnaryCall<_docex_webhook_v1_RegisterValidationTargetRequest, _docex_webhook_v1_RegisterValidationTargetResponseInput>;
  
  /**
   * Calls the queue's external validation link (or a deprecated validation webhook) and returns its answer.
   * Failures of the receiver are outcomes, not errors, so the caller can save the edit and warn the user.
   */
  Validate: grpc.handleUnaryCall<_docex_webhook_v1_ValidateRequest, _docex_webhook_v1_ValidateResponseInput>;
  
}

export interface WebhookDefinition extends grpc.ServiceDefinition {
  DeleteValidationWebhook: MethodDefinition<_docex_webhook_v1_DeleteValidationWebhookRequestInput, _docex_webhook_v1_DeleteValidationWebhookResponseInput, _docex_webhook_v1_DeleteValidationWebhookRequest, _docex_webhook_v1_DeleteValidationWebhookResponse>
  DescribeValidationTargets: MethodDefinition<_docex_webhook_v1_DescribeValidationTargetsRequestInput, _docex_webhook_v1_DescribeValidationTargetsResponseInput, _docex_webhook_v1_DescribeValidationTargetsRequest, _docex_webhook_v1_DescribeValidationTargetsResponse>
  RegisterValidationTarget: MethodDefinition<_docex_webhook_v1_RegisterValidationTargetRequestInput, _docex_webhook_v1_RegisterValidationTargetResponseInput, _docex_webhook_v1_RegisterValidationTargetRequest, _docex_webhook_v1_RegisterValidationTargetResponse>
  Validate: MethodDefinition<_docex_webhook_v1_ValidateRequestInput, _docex_webhook_v1_ValidateResponseInput, _docex_webhook_v1_ValidateRequest, _docex_webhook_v1_ValidateResponse>
}
