// Original file: auth.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CreateInvitationRequestInput as _docex_auth_v1_CreateInvitationRequestInput, CreateInvitationRequest as _docex_auth_v1_CreateInvitationRequest } from '../../../docex/auth/v1/CreateInvitationRequest.js';
import type { CreateInvitationResponseInput as _docex_auth_v1_CreateInvitationResponseInput, CreateInvitationResponse as _docex_auth_v1_CreateInvitationResponse } from '../../../docex/auth/v1/CreateInvitationResponse.js';
import type { FindUserByEmailRequestInput as _docex_auth_v1_FindUserByEmailRequestInput, FindUserByEmailRequest as _docex_auth_v1_FindUserByEmailRequest } from '../../../docex/auth/v1/FindUserByEmailRequest.js';
import type { FindUserByEmailResponseInput as _docex_auth_v1_FindUserByEmailResponseInput, FindUserByEmailResponse as _docex_auth_v1_FindUserByEmailResponse } from '../../../docex/auth/v1/FindUserByEmailResponse.js';
import type { GetUserRequestInput as _docex_auth_v1_GetUserRequestInput, GetUserRequest as _docex_auth_v1_GetUserRequest } from '../../../docex/auth/v1/GetUserRequest.js';
import type { GetUserResponseInput as _docex_auth_v1_GetUserResponseInput, GetUserResponse as _docex_auth_v1_GetUserResponse } from '../../../docex/auth/v1/GetUserResponse.js';

/**
 * Identity: users, and the invitations that create them.
 */
export interface AuthClient extends grpc.Client {
  /**
   * Creates the user (status "invited") when the email is unknown, and mails an invitation token to the
   * address whether or not it was registered (not to a deactivated account). The token is bound to
   * organization_id; its holder accepts with POST /auth/accept-invitation (or, without a password yet,
   * change-password), which calls membership's AcceptInvitation.
   */
  CreateInvitation(argument: _docex_auth_v1_CreateInvitationRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_auth_v1_CreateInvitationResponse>): grpc.ClientUnaryCall;
  CreateInvitation(argument: _docex_auth_v1_CreateInvitationRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_auth_v1_CreateInvitationResponse>): grpc.ClientUnaryCall;
  CreateInvitation(argument: _docex_auth_v1_CreateInvitationRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_auth_v1_CreateInvitationResponse>): grpc.ClientUnaryCall;
  CreateInvitation(argument: _docex_auth_v1_CreateInvitationRequestInput, callback: grpc.requestCallback<_docex_auth_v1_CreateInvitationResponse>): grpc.ClientUnaryCall;
  /**
   * Creates the user (status "invited") when the email is unknown, and mails an invitation token to the
   * address whether or not it was registered (not to a deactivated account). The token is bound to
   * organization_id; its holder accepts with POST /auth/accept-invitation (or, without a password yet,
   * change-password), which calls membership's AcceptInvitation.
   */
  createInvitation(argument: _docex_auth_v1_CreateInvitationRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_auth_v1_CreateInvitationResponse>): grpc.ClientUnaryCall;
  createInvitation(argument: _docex_auth_v1_CreateInvitationRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_auth_v1_CreateInvitationResponse>): grpc.ClientUnaryCall;
  createInvitation(argument: _docex_auth_v1_CreateInvitationRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_auth_v1_CreateInvitationResponse>): grpc.ClientUnaryCall;
  createInvitation(argument: _docex_auth_v1_CreateInvitationRequestInput, callback: grpc.requestCallback<_docex_auth_v1_CreateInvitationResponse>): grpc.ClientUnaryCall;
  
  /**
   * Answers found = false rather than NOT_FOUND; callers must not reveal to clients whether an email is registered.
   */
  FindUserByEmail(argument: _docex_auth_v1_FindUserByEmailRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_auth_v1_FindUserByEmailResponse>): grpc.ClientUnaryCall;
  FindUserByEmail(argument: _docex_auth_v1_FindUserByEmailRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_auth_v1_FindUserByEmailResponse>): grpc.ClientUnaryCall;
  FindUserByEmail(argument: _docex_auth_v1_FindUserByEmailRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_auth_v1_FindUserByEmailResponse>): grpc.ClientUnaryCall;
  FindUserByEmail(argument: _docex_auth_v1_FindUserByEmailRequestInput, callback: grpc.requestCallback<_docex_auth_v1_FindUserByEmailResponse>): grpc.ClientUnaryCall;
  /**
   * Answers found = false rather than NOT_FOUND; callers must not reveal to clients whether an email is registered.
   */
  findUserByEmail(argument: _docex_auth_v1_FindUserByEmailRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_auth_v1_FindUserByEmailResponse>): grpc.ClientUnaryCall;
  findUserByEmail(argument: _docex_auth_v1_FindUserByEmailRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_auth_v1_FindUserByEmailResponse>): grpc.ClientUnaryCall;
  findUserByEmail(argument: _docex_auth_v1_FindUserByEmailRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_auth_v1_FindUserByEmailResponse>): grpc.ClientUnaryCall;
  findUserByEmail(argument: _docex_auth_v1_FindUserByEmailRequestInput, callback: grpc.requestCallback<_docex_auth_v1_FindUserByEmailResponse>): grpc.ClientUnaryCall;
  
  /**
   * NOT_FOUND when no user has this id.
   */
  GetUser(argument: _docex_auth_v1_GetUserRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_auth_v1_GetUserResponse>): grpc.ClientUnaryCall;
  GetUser(argument: _docex_auth_v1_GetUserRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_auth_v1_GetUserResponse>): grpc.ClientUnaryCall;
  GetUser(argument: _docex_auth_v1_GetUserRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_auth_v1_GetUserResponse>): grpc.ClientUnaryCall;
  GetUser(argument: _docex_auth_v1_GetUserRequestInput, callback: grpc.requestCallback<_docex_auth_v1_GetUserResponse>): grpc.ClientUnaryCall;
  /**
   * NOT_FOUND when no user has this id.
   */
  getUser(argument: _docex_auth_v1_GetUserRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_auth_v1_GetUserResponse>): grpc.ClientUnaryCall;
  getUser(argument: _docex_auth_v1_GetUserRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_auth_v1_GetUserResponse>): grpc.ClientUnaryCall;
  getUser(argument: _docex_auth_v1_GetUserRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_auth_v1_GetUserResponse>): grpc.ClientUnaryCall;
  getUser(argument: _docex_auth_v1_GetUserRequestInput, callback: grpc.requestCallback<_docex_auth_v1_GetUserResponse>): grpc.ClientUnaryCall;
  
}

/**
 * Identity: users, and the invitations that create them.
 */
export interface AuthHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Creates the user (status "invited") when the email is unknown, and mails an invitation token to the
   * address whether or not it was registered (not to a deactivated account). The token is bound to
   * organization_id; its holder accepts with POST /auth/accept-invitation (or, without a password yet,
   * change-password), which calls membership's AcceptInvitation.
   */
  CreateInvitation: grpc.handleUnaryCall<_docex_auth_v1_CreateInvitationRequest, _docex_auth_v1_CreateInvitationResponseInput>;
  
  /**
   * Answers found = false rather than NOT_FOUND; callers must not reveal to clients whether an email is registered.
   */
  FindUserByEmail: grpc.handleUnaryCall<_docex_auth_v1_FindUserByEmailRequest, _docex_auth_v1_FindUserByEmailResponseInput>;
  
  /**
   * NOT_FOUND when no user has this id.
   */
  GetUser: grpc.handleUnaryCall<_docex_auth_v1_GetUserRequest, _docex_auth_v1_GetUserResponseInput>;
  
}

export interface AuthDefinition extends grpc.ServiceDefinition {
  CreateInvitation: MethodDefinition<_docex_auth_v1_CreateInvitationRequestInput, _docex_auth_v1_CreateInvitationResponseInput, _docex_auth_v1_CreateInvitationRequest, _docex_auth_v1_CreateInvitationResponse>
  FindUserByEmail: MethodDefinition<_docex_auth_v1_FindUserByEmailRequestInput, _docex_auth_v1_FindUserByEmailResponseInput, _docex_auth_v1_FindUserByEmailRequest, _docex_auth_v1_FindUserByEmailResponse>
  GetUser: MethodDefinition<_docex_auth_v1_GetUserRequestInput, _docex_auth_v1_GetUserResponseInput, _docex_auth_v1_GetUserRequest, _docex_auth_v1_GetUserResponse>
}
