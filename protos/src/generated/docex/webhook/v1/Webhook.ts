// Original file: webhook.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DescribeValidationTargetsRequestInput as _docex_webhook_v1_DescribeValidationTargetsRequestInput, DescribeValidationTargetsRequest as _docex_webhook_v1_DescribeValidationTargetsRequest } from '../../../docex/webhook/v1/DescribeValidationTargetsRequest.js';
import type { DescribeValidationTargetsResponseInput as _docex_webhook_v1_DescribeValidationTargetsResponseInput, DescribeValidationTargetsResponse as _docex_webhook_v1_DescribeValidationTargetsResponse } from '../../../docex/webhook/v1/DescribeValidationTargetsResponse.js';
import type { ListValidatorsRequestInput as _docex_webhook_v1_ListValidatorsRequestInput, ListValidatorsRequest as _docex_webhook_v1_ListValidatorsRequest } from '../../../docex/webhook/v1/ListValidatorsRequest.js';
import type { ListValidatorsResponseInput as _docex_webhook_v1_ListValidatorsResponseInput, ListValidatorsResponse as _docex_webhook_v1_ListValidatorsResponse } from '../../../docex/webhook/v1/ListValidatorsResponse.js';
import type { RegisterValidationTargetRequestInput as _docex_webhook_v1_RegisterValidationTargetRequestInput, RegisterValidationTargetRequest as _docex_webhook_v1_RegisterValidationTargetRequest } from '../../../docex/webhook/v1/RegisterValidationTargetRequest.js';
import type { RegisterValidationTargetResponseInput as _docex_webhook_v1_RegisterValidationTargetResponseInput, RegisterValidationTargetResponse as _docex_webhook_v1_RegisterValidationTargetResponse } from '../../../docex/webhook/v1/RegisterValidationTargetResponse.js';
import type { ValidateRequestInput as _docex_webhook_v1_ValidateRequestInput, ValidateRequest as _docex_webhook_v1_ValidateRequest } from '../../../docex/webhook/v1/ValidateRequest.js';
import type { ValidateResponseInput as _docex_webhook_v1_ValidateResponseInput, ValidateResponse as _docex_webhook_v1_ValidateResponse } from '../../../docex/webhook/v1/ValidateResponse.js';

/**
 * Integration: webhooks, signing keys, external validation links and deliveries.
 */
export interface WebhookClient extends grpc.Client {
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
   * Every validator there is, of every organization, in pages ordered by key: the queues' external validation links
   * and the deprecated validation webhooks. The document service seeds its projection of them once with it.
   */
  ListValidators(argument: _docex_webhook_v1_ListValidatorsRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_ListValidatorsResponse>): grpc.ClientUnaryCall;
  ListValidators(argument: _docex_webhook_v1_ListValidatorsRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_webhook_v1_ListValidatorsResponse>): grpc.ClientUnaryCall;
  ListValidators(argument: _docex_webhook_v1_ListValidatorsRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_ListValidatorsResponse>): grpc.ClientUnaryCall;
  ListValidators(argument: _docex_webhook_v1_ListValidatorsRequestInput, callback: grpc.requestCallback<_docex_webhook_v1_ListValidatorsResponse>): grpc.ClientUnaryCall;
  /**
   * Every validator there is, of every organization, in pages ordered by key: the queues' external validation links
   * and the deprecated validation webhooks. The document service seeds its projection of them once with it.
   */
  listValidators(argument: _docex_webhook_v1_ListValidatorsRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_ListValidatorsResponse>): grpc.ClientUnaryCall;
  listValidators(argument: _docex_webhook_v1_ListValidatorsRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_webhook_v1_ListValidatorsResponse>): grpc.ClientUnaryCall;
  listValidators(argument: _docex_webhook_v1_ListValidatorsRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_webhook_v1_ListValidatorsResponse>): grpc.ClientUnaryCall;
  listValidators(argument: _docex_webhook_v1_ListValidatorsRequestInput, callback: grpc.requestCallback<_docex_webhook_v1_ListValidatorsResponse>): grpc.ClientUnaryCall;
  
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
   * What the organization's targets call, for listing them: the URL (whole and masked) and the signing setting. Ids of
   * other organizations, and ids that name nothing, are left out of the answer.
   */
  DescribeValidationTargets: grpc.handleUnaryCall<_docex_webhook_v1_DescribeValidationTargetsRequest, _docex_webhook_v1_DescribeValidationTargetsResponseInput>;
  
  /**
   * Every validator there is, of every organization, in pages ordered by key: the queues' external validation links
   * and the deprecated validation webhooks. The document service seeds its projection of them once with it.
   */
  ListValidators: grpc.handleUnaryCall<_docex_webhook_v1_ListValidatorsRequest, _docex_webhook_v1_ListValidatorsResponseInput>;
  
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
  DescribeValidationTargets: MethodDefinition<_docex_webhook_v1_DescribeValidationTargetsRequestInput, _docex_webhook_v1_DescribeValidationTargetsResponseInput, _docex_webhook_v1_DescribeValidationTargetsRequest, _docex_webhook_v1_DescribeValidationTargetsResponse>
  ListValidators: MethodDefinition<_docex_webhook_v1_ListValidatorsRequestInput, _docex_webhook_v1_ListValidatorsResponseInput, _docex_webhook_v1_ListValidatorsRequest, _docex_webhook_v1_ListValidatorsResponse>
  RegisterValidationTarget: MethodDefinition<_docex_webhook_v1_RegisterValidationTargetRequestInput, _docex_webhook_v1_RegisterValidationTargetResponseInput, _docex_webhook_v1_RegisterValidationTargetRequest, _docex_webhook_v1_RegisterValidationTargetResponse>
  Validate: MethodDefinition<_docex_webhook_v1_ValidateRequestInput, _docex_webhook_v1_ValidateResponseInput, _docex_webhook_v1_ValidateRequest, _docex_webhook_v1_ValidateResponse>
}
