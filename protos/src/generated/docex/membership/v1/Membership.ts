// Original file: membership.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AcceptInvitationRequestInput as _docex_membership_v1_AcceptInvitationRequestInput, AcceptInvitationRequest as _docex_membership_v1_AcceptInvitationRequest } from '../../../docex/membership/v1/AcceptInvitationRequest.js';
import type { AcceptInvitationResponseInput as _docex_membership_v1_AcceptInvitationResponseInput, AcceptInvitationResponse as _docex_membership_v1_AcceptInvitationResponse } from '../../../docex/membership/v1/AcceptInvitationResponse.js';
import type { CheckPermissionRequestInput as _docex_membership_v1_CheckPermissionRequestInput, CheckPermissionRequest as _docex_membership_v1_CheckPermissionRequest } from '../../../docex/membership/v1/CheckPermissionRequest.js';
import type { CheckPermissionResponseInput as _docex_membership_v1_CheckPermissionResponseInput, CheckPermissionResponse as _docex_membership_v1_CheckPermissionResponse } from '../../../docex/membership/v1/CheckPermissionResponse.js';
import type { CreateOrganizationRequestInput as _docex_membership_v1_CreateOrganizationRequestInput, CreateOrganizationRequest as _docex_membership_v1_CreateOrganizationRequest } from '../../../docex/membership/v1/CreateOrganizationRequest.js';
import type { CreateOrganizationResponseInput as _docex_membership_v1_CreateOrganizationResponseInput, CreateOrganizationResponse as _docex_membership_v1_CreateOrganizationResponse } from '../../../docex/membership/v1/CreateOrganizationResponse.js';
import type { GetOrganizationRequestInput as _docex_membership_v1_GetOrganizationRequestInput, GetOrganizationRequest as _docex_membership_v1_GetOrganizationRequest } from '../../../docex/membership/v1/GetOrganizationRequest.js';
import type { GetOrganizationResponseInput as _docex_membership_v1_GetOrganizationResponseInput, GetOrganizationResponse as _docex_membership_v1_GetOrganizationResponse } from '../../../docex/membership/v1/GetOrganizationResponse.js';
import type { GetRolesRequestInput as _docex_membership_v1_GetRolesRequestInput, GetRolesRequest as _docex_membership_v1_GetRolesRequest } from '../../../docex/membership/v1/GetRolesRequest.js';
import type { GetRolesResponseInput as _docex_membership_v1_GetRolesResponseInput, GetRolesResponse as _docex_membership_v1_GetRolesResponse } from '../../../docex/membership/v1/GetRolesResponse.js';
import type { GetUserSchemaRequestInput as _docex_membership_v1_GetUserSchemaRequestInput, GetUserSchemaRequest as _docex_membership_v1_GetUserSchemaRequest } from '../../../docex/membership/v1/GetUserSchemaRequest.js';
import type { GetUserSchemaResponseInput as _docex_membership_v1_GetUserSchemaResponseInput, GetUserSchemaResponse as _docex_membership_v1_GetUserSchemaResponse } from '../../../docex/membership/v1/GetUserSchemaResponse.js';
import type { ListOrganizationsOfUserRequestInput as _docex_membership_v1_ListOrganizationsOfUserRequestInput, ListOrganizationsOfUserRequest as _docex_membership_v1_ListOrganizationsOfUserRequest } from '../../../docex/membership/v1/ListOrganizationsOfUserRequest.js';
import type { ListOrganizationsOfUserResponseInput as _docex_membership_v1_ListOrganizationsOfUserResponseInput, ListOrganizationsOfUserResponse as _docex_membership_v1_ListOrganizationsOfUserResponse } from '../../../docex/membership/v1/ListOrganizationsOfUserResponse.js';

/**
 * People and roles: organizations, memberships, roles and user annotation schemas.
 */
export interface MembershipClient extends grpc.Client {
  /**
   * The invitee's consent: auth calls it when the holder of an invitation token accepts it (accept-invitation, or
   * change-password setting an invited user's first password). The pending membership becomes active. NOT_FOUND when
   * the organization has no unexpired invitation of this user (withdrawn, expired, never sent). Idempotent: an
   * invitation accepted already answers accepted = false.
   */
  AcceptInvitation(argument: _docex_membership_v1_AcceptInvitationRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_AcceptInvitationResponse>): grpc.ClientUnaryCall;
  AcceptInvitation(argument: _docex_membership_v1_AcceptInvitationRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_membership_v1_AcceptInvitationResponse>): grpc.ClientUnaryCall;
  AcceptInvitation(argument: _docex_membership_v1_AcceptInvitationRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_AcceptInvitationResponse>): grpc.ClientUnaryCall;
  AcceptInvitation(argument: _docex_membership_v1_AcceptInvitationRequestInput, callback: grpc.requestCallback<_docex_membership_v1_AcceptInvitationResponse>): grpc.ClientUnaryCall;
  /**
   * The invitee's consent: auth calls it when the holder of an invitation token accepts it (accept-invitation, or
   * change-password setting an invited user's first password). The pending membership becomes active. NOT_FOUND when
   * the organization has no unexpired invitation of this user (withdrawn, expired, never sent). Idempotent: an
   * invitation accepted already answers accepted = false.
   */
  acceptInvitation(argument: _docex_membership_v1_AcceptInvitationRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_AcceptInvitationResponse>): grpc.ClientUnaryCall;
  acceptInvitation(argument: _docex_membership_v1_AcceptInvitationRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_membership_v1_AcceptInvitationResponse>): grpc.ClientUnaryCall;
  acceptInvitation(argument: _docex_membership_v1_AcceptInvitationRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_AcceptInvitationResponse>): grpc.ClientUnaryCall;
  acceptInvitation(argument: _docex_membership_v1_AcceptInvitationRequestInput, callback: grpc.requestCallback<_docex_membership_v1_AcceptInvitationResponse>): grpc.ClientUnaryCall;
  
  /**
   * Decides one permission of the roles table in API.md. INVALID_ARGUMENT for a permission not listed below.
   */
  CheckPermission(argument: _docex_membership_v1_CheckPermissionRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_CheckPermissionResponse>): grpc.ClientUnaryCall;
  CheckPermission(argument: _docex_membership_v1_CheckPermissionRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_membership_v1_CheckPermissionResponse>): grpc.ClientUnaryCall;
  CheckPermission(argument: _docex_membership_v1_CheckPermissionRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_CheckPermissionResponse>): grpc.ClientUnaryCall;
  CheckPermission(argument: _docex_membership_v1_CheckPermissionRequestInput, callback: grpc.requestCallback<_docex_membership_v1_CheckPermissionResponse>): grpc.ClientUnaryCall;
  /**
   * Decides one permission of the roles table in API.md. INVALID_ARGUMENT for a permission not listed below.
   */
  checkPermission(argument: _docex_membership_v1_CheckPermissionRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_CheckPermissionResponse>): grpc.ClientUnaryCall;
  checkPermission(argument: _docex_membership_v1_CheckPermissionRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_membership_v1_CheckPermissionResponse>): grpc.ClientUnaryCall;
  checkPermission(argument: _docex_membership_v1_CheckPermissionRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_CheckPermissionResponse>): grpc.ClientUnaryCall;
  checkPermission(argument: _docex_membership_v1_CheckPermissionRequestInput, callback: grpc.requestCallback<_docex_membership_v1_CheckPermissionResponse>): grpc.ClientUnaryCall;
  
  /**
   * Creates an organization with owner_user_id as its owner. A repeated idempotency_key answers the
   * organization created the first time (created = false). ALREADY_EXISTS when humanized_id is taken.
   */
  CreateOrganization(argument: _docex_membership_v1_CreateOrganizationRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_CreateOrganizationResponse>): grpc.ClientUnaryCall;
  CreateOrganization(argument: _docex_membership_v1_CreateOrganizationRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_membership_v1_CreateOrganizationResponse>): grpc.ClientUnaryCall;
  CreateOrganization(argument: _docex_membership_v1_CreateOrganizationRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_CreateOrganizationResponse>): grpc.ClientUnaryCall;
  CreateOrganization(argument: _docex_membership_v1_CreateOrganizationRequestInput, callback: grpc.requestCallback<_docex_membership_v1_CreateOrganizationResponse>): grpc.ClientUnaryCall;
  /**
   * Creates an organization with owner_user_id as its owner. A repeated idempotency_key answers the
   * organization created the first time (created = false). ALREADY_EXISTS when humanized_id is taken.
   */
  createOrganization(argument: _docex_membership_v1_CreateOrganizationRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_CreateOrganizationResponse>): grpc.ClientUnaryCall;
  createOrganization(argument: _docex_membership_v1_CreateOrganizationRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_membership_v1_CreateOrganizationResponse>): grpc.ClientUnaryCall;
  createOrganization(argument: _docex_membership_v1_CreateOrganizationRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_CreateOrganizationResponse>): grpc.ClientUnaryCall;
  createOrganization(argument: _docex_membership_v1_CreateOrganizationRequestInput, callback: grpc.requestCallback<_docex_membership_v1_CreateOrganizationResponse>): grpc.ClientUnaryCall;
  
  /**
   * An organization by UUID or humanized id, whoever asks; NOT_FOUND when there is none. For services that keep a
   * projection of organization.created and are asked about one whose event has not reached them yet.
   */
  GetOrganization(argument: _docex_membership_v1_GetOrganizationRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_GetOrganizationResponse>): grpc.ClientUnaryCall;
  GetOrganization(argument: _docex_membership_v1_GetOrganizationRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_membership_v1_GetOrganizationResponse>): grpc.ClientUnaryCall;
  GetOrganization(argument: _docex_membership_v1_GetOrganizationRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_GetOrganizationResponse>): grpc.ClientUnaryCall;
  GetOrganization(argument: _docex_membership_v1_GetOrganizationRequestInput, callback: grpc.requestCallback<_docex_membership_v1_GetOrganizationResponse>): grpc.ClientUnaryCall;
  /**
   * An organization by UUID or humanized id, whoever asks; NOT_FOUND when there is none. For services that keep a
   * projection of organization.created and are asked about one whose event has not reached them yet.
   */
  getOrganization(argument: _docex_membership_v1_GetOrganizationRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_GetOrganizationResponse>): grpc.ClientUnaryCall;
  getOrganization(argument: _docex_membership_v1_GetOrganizationRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_membership_v1_GetOrganizationResponse>): grpc.ClientUnaryCall;
  getOrganization(argument: _docex_membership_v1_GetOrganizationRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_GetOrganizationResponse>): grpc.ClientUnaryCall;
  getOrganization(argument: _docex_membership_v1_GetOrganizationRequestInput, callback: grpc.requestCallback<_docex_membership_v1_GetOrganizationResponse>): grpc.ClientUnaryCall;
  
  /**
   * The caller's membership in an organization; role is empty when the user is not a member (a pending
   * invitation is none until accepted). Never NOT_FOUND, so callers can cache "not a member" like any other answer.
   */
  GetRoles(argument: _docex_membership_v1_GetRolesRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_GetRolesResponse>): grpc.ClientUnaryCall;
  GetRoles(argument: _docex_membership_v1_GetRolesRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_membership_v1_GetRolesResponse>): grpc.ClientUnaryCall;
  GetRoles(argument: _docex_membership_v1_GetRolesRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_GetRolesResponse>): grpc.ClientUnaryCall;
  GetRoles(argument: _docex_membership_v1_GetRolesRequestInput, callback: grpc.requestCallback<_docex_membership_v1_GetRolesResponse>): grpc.ClientUnaryCall;
  /**
   * The caller's membership in an organization; role is empty when the user is not a member (a pending
   * invitation is none until accepted). Never NOT_FOUND, so callers can cache "not a member" like any other answer.
   */
  getRoles(argument: _docex_membership_v1_GetRolesRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_GetRolesResponse>): grpc.ClientUnaryCall;
  getRoles(argument: _docex_membership_v1_GetRolesRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_membership_v1_GetRolesResponse>): grpc.ClientUnaryCall;
  getRoles(argument: _docex_membership_v1_GetRolesRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_GetRolesResponse>): grpc.ClientUnaryCall;
  getRoles(argument: _docex_membership_v1_GetRolesRequestInput, callback: grpc.requestCallback<_docex_membership_v1_GetRolesResponse>): grpc.ClientUnaryCall;
  
  /**
   * The effective user annotation schema: the queue's entries over the organization-wide ones.
   */
  GetUserSchema(argument: _docex_membership_v1_GetUserSchemaRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_GetUserSchemaResponse>): grpc.ClientUnaryCall;
  GetUserSchema(argument: _docex_membership_v1_GetUserSchemaRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_membership_v1_GetUserSchemaResponse>): grpc.ClientUnaryCall;
  GetUserSchema(argument: _docex_membership_v1_GetUserSchemaRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_GetUserSchemaResponse>): grpc.ClientUnaryCall;
  GetUserSchema(argument: _docex_membership_v1_GetUserSchemaRequestInput, callback: grpc.requestCallback<_docex_membership_v1_GetUserSchemaResponse>): grpc.ClientUnaryCall;
  /**
   * The effective user annotation schema: the queue's entries over the organization-wide ones.
   */
  getUserSchema(argument: _docex_membership_v1_GetUserSchemaRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_GetUserSchemaResponse>): grpc.ClientUnaryCall;
  getUserSchema(argument: _docex_membership_v1_GetUserSchemaRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_membership_v1_GetUserSchemaResponse>): grpc.ClientUnaryCall;
  getUserSchema(argument: _docex_membership_v1_GetUserSchemaRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_GetUserSchemaResponse>): grpc.ClientUnaryCall;
  getUserSchema(argument: _docex_membership_v1_GetUserSchemaRequestInput, callback: grpc.requestCallback<_docex_membership_v1_GetUserSchemaResponse>): grpc.ClientUnaryCall;
  
  /**
   * Organizations in which the user has a membership that is not deactivated (include_deactivated: accepted, whatever
   * its status), oldest first.
   */
  ListOrganizationsOfUser(argument: _docex_membership_v1_ListOrganizationsOfUserRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_ListOrganizationsOfUserResponse>): grpc.ClientUnaryCall;
  ListOrganizationsOfUser(argument: _docex_membership_v1_ListOrganizationsOfUserRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_membership_v1_ListOrganizationsOfUserResponse>): grpc.ClientUnaryCall;
  ListOrganizationsOfUser(argument: _docex_membership_v1_ListOrganizationsOfUserRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_ListOrganizationsOfUserResponse>): grpc.ClientUnaryCall;
  ListOrganizationsOfUser(argument: _docex_membership_v1_ListOrganizationsOfUserRequestInput, callback: grpc.requestCallback<_docex_membership_v1_ListOrganizationsOfUserResponse>): grpc.ClientUnaryCall;
  /**
   * Organizations in which the user has a membership that is not deactivated (include_deactivated: accepted, whatever
   * its status), oldest first.
   */
  listOrganizationsOfUser(argument: _docex_membership_v1_ListOrganizationsOfUserRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_ListOrganizationsOfUserResponse>): grpc.ClientUnaryCall;
  listOrganizationsOfUser(argument: _docex_membership_v1_ListOrganizationsOfUserRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_membership_v1_ListOrganizationsOfUserResponse>): grpc.ClientUnaryCall;
  listOrganizationsOfUser(argument: _docex_membership_v1_ListOrganizationsOfUserRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_membership_v1_ListOrganizationsOfUserResponse>): grpc.ClientUnaryCall;
  listOrganizationsOfUser(argument: _docex_membership_v1_ListOrganizationsOfUserRequestInput, callback: grpc.requestCallback<_docex_membership_v1_ListOrganizationsOfUserResponse>): grpc.ClientUnaryCall;
  
}

/**
 * People and roles: organizations, memberships, roles and user annotation schemas.
 */
export interface MembershipHandlers extends grpc.UntypedServiceImplementation {
  /**
   * The invitee's consent: auth calls it when the holder of an invitation token accepts it (accept-invitation, or
   * change-password setting an invited user's first password). The pending membership becomes active. NOT_FOUND when
   * the organization has no unexpired invitation of this user (withdrawn, expired, never sent). Idempotent: an
   * invitation accepted already answers accepted = false.
   */
  AcceptInvitation: grpc.handleUnaryCall<_docex_membership_v1_AcceptInvitationRequest, _docex_membership_v1_AcceptInvitationResponseInput>;
  
  /**
   * Decides one permission of the roles table in API.md. INVALID_ARGUMENT for a permission not listed below.
   */
  CheckPermission: grpc.handleUnaryCall<_docex_membership_v1_CheckPermissionRequest, _docex_membership_v1_CheckPermissionResponseInput>;
  
  /**
   * Creates an organization with owner_user_id as its owner. A repeated idempotency_key answers the
   * organization created the first time (created = false). ALREADY_EXISTS when humanized_id is taken.
   */
  CreateOrganization: grpc.handleUnaryCall<_docex_membership_v1_CreateOrganizationRequest, _docex_membership_v1_CreateOrganizationResponseInput>;
  
  /**
   * An organization by UUID or humanized id, whoever asks; NOT_FOUND when there is none. For services that keep a
   * projection of organization.created and are asked about one whose event has not reached them yet.
   */
  GetOrganization: grpc.handleUnaryCall<_docex_membership_v1_GetOrganizationRequest, _docex_membership_v1_GetOrganizationResponseInput>;
  
  /**
   * The caller's membership in an organization; role is empty when the user is not a member (a pending
   * invitation is none until accepted). Never NOT_FOUND, so callers can cache "not a member" like any other answer.
   */
  GetRoles: grpc.handleUnaryCall<_docex_membership_v1_GetRolesRequest, _docex_membership_v1_GetRolesResponseInput>;
  
  /**
   * The effective user annotation schema: the queue's entries over the organization-wide ones.
   */
  GetUserSchema: grpc.handleUnaryCall<_docex_membership_v1_GetUserSchemaRequest, _docex_membership_v1_GetUserSchemaResponseInput>;
  
  /**
   * Organizations in which the user has a membership that is not deactivated (include_deactivated: accepted, whatever
   * its status), oldest first.
   */
  ListOrganizationsOfUser: grpc.handleUnaryCall<_docex_membership_v1_ListOrganizationsOfUserRequest, _docex_membership_v1_ListOrganizationsOfUserResponseInput>;
  
}

export interface MembershipDefinition extends grpc.ServiceDefinition {
  AcceptInvitation: MethodDefinition<_docex_membership_v1_AcceptInvitationRequestInput, _docex_membership_v1_AcceptInvitationResponseInput, _docex_membership_v1_AcceptInvitationRequest, _docex_membership_v1_AcceptInvitationResponse>
  CheckPermission: MethodDefinition<_docex_membership_v1_CheckPermissionRequestInput, _docex_membership_v1_CheckPermissionResponseInput, _docex_membership_v1_CheckPermissionRequest, _docex_membership_v1_CheckPermissionResponse>
  CreateOrganization: MethodDefinition<_docex_membership_v1_CreateOrganizationRequestInput, _docex_membership_v1_CreateOrganizationResponseInput, _docex_membership_v1_CreateOrganizationRequest, _docex_membership_v1_CreateOrganizationResponse>
  GetOrganization: MethodDefinition<_docex_membership_v1_GetOrganizationRequestInput, _docex_membership_v1_GetOrganizationResponseInput, _docex_membership_v1_GetOrganizationRequest, _docex_membership_v1_GetOrganizationResponse>
  GetRoles: MethodDefinition<_docex_membership_v1_GetRolesRequestInput, _docex_membership_v1_GetRolesResponseInput, _docex_membership_v1_GetRolesRequest, _docex_membership_v1_GetRolesResponse>
  GetUserSchema: MethodDefinition<_docex_membership_v1_GetUserSchemaRequestInput, _docex_membership_v1_GetUserSchemaResponseInput, _docex_membership_v1_GetUserSchemaRequest, _docex_membership_v1_GetUserSchemaResponse>
  ListOrganizationsOfUser: MethodDefinition<_docex_membership_v1_ListOrganizationsOfUserRequestInput, _docex_membership_v1_ListOrganizationsOfUserResponseInput, _docex_membership_v1_ListOrganizationsOfUserRequest, _docex_membership_v1_ListOrganizationsOfUserResponse>
}
