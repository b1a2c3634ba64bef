// Original file: document.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { ApplyDocumentChangesRequestInput as _docex_document_v1_ApplyDocumentChangesRequestInput, ApplyDocumentChangesRequest as _docex_document_v1_ApplyDocumentChangesRequest } from '../../../docex/document/v1/ApplyDocumentChangesRequest.js';
import type { ApplyDocumentChangesResponseInput as _docex_document_v1_ApplyDocumentChangesResponseInput, ApplyDocumentChangesResponse as _docex_document_v1_ApplyDocumentChangesResponse } from '../../../docex/document/v1/ApplyDocumentChangesResponse.js';
import type { GetDocumentRequestInput as _docex_document_v1_GetDocumentRequestInput, GetDocumentRequest as _docex_document_v1_GetDocumentRequest } from '../../../docex/document/v1/GetDocumentRequest.js';
import type { GetDocumentResponseInput as _docex_document_v1_GetDocumentResponseInput, GetDocumentResponse as _docex_document_v1_GetDocumentResponse } from '../../../docex/document/v1/GetDocumentResponse.js';
import type { GetQueueRequestInput as _docex_document_v1_GetQueueRequestInput, GetQueueRequest as _docex_document_v1_GetQueueRequest } from '../../../docex/document/v1/GetQueueRequest.js';
import type { GetQueueResponseInput as _docex_document_v1_GetQueueResponseInput, GetQueueResponse as _docex_document_v1_GetQueueResponse } from '../../../docex/document/v1/GetQueueResponse.js';
import type { ResolveEntityRequestInput as _docex_document_v1_ResolveEntityRequestInput, ResolveEntityRequest as _docex_document_v1_ResolveEntityRequest } from '../../../docex/document/v1/ResolveEntityRequest.js';
import type { ResolveEntityResponseInput as _docex_document_v1_ResolveEntityResponseInput, ResolveEntityResponse as _docex_document_v1_ResolveEntityResponse } from '../../../docex/document/v1/ResolveEntityResponse.js';

/**
 * Documents: workspaces, queues, documents, their annotations, messages and status.
 */
export interface DocumentClient extends grpc.Client {
  /**
   * Changes a document on behalf of another context (automation rules, learned values, validation answers).
   * Refusals the caller should expect (stale version, a status move that is not allowed) answer applied = false
   * with a reason; NOT_FOUND for an unknown document, INVALID_ARGUMENT for malformed JSON or an unknown source.
   */
  ApplyDocumentChanges(argument: _docex_document_v1_ApplyDocumentChangesRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ApplyDocumentChangesResponse>): grpc.ClientUnaryCall;
  ApplyDocumentChanges(argument: _docex_document_v1_ApplyDocumentChangesRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_ApplyDocumentChangesResponse>): grpc.ClientUnaryCall;
  ApplyDocumentChanges(argument: _docex_document_v1_ApplyDocumentChangesRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ApplyDocumentChangesResponse>): grpc.ClientUnaryCall;
  ApplyDocumentChanges(argument: _docex_document_v1_ApplyDocumentChangesRequestInput, callback: grpc.requestCallback<_docex_document_v1_ApplyDocumentChangesResponse>): grpc.ClientUnaryCall;
  /**
   * Changes a document on behalf of another context (automation rules, learned values, validation answers).
   * Refusals the caller should expect (stale version, a status move that is not allowed) answer applied = false
   * with a reason; NOT_FOUND for an unknown document, INVALID_ARGUMENT for malformed JSON or an unknown source.
   */
  applyDocumentChanges(argument: _docex_document_v1_ApplyDocumentChangesRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ApplyDocumentChangesResponse>): grpc.ClientUnaryCall;
  applyDocumentChanges(argument: _docex_document_v1_ApplyDocumentChangesRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_ApplyDocumentChangesResponse>): grpc.ClientUnaryCall;
  applyDocumentChanges(argument: _docex_document_v1_ApplyDocumentChangesRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ApplyDocumentChangesResponse>): grpc.ClientUnaryCall;
  applyDocumentChanges(argument: _docex_document_v1_ApplyDocumentChangesRequestInput, callback: grpc.requestCallback<_docex_document_v1_ApplyDocumentChangesResponse>): grpc.ClientUnaryCall;
  
  /**
   * NOT_FOUND for an unknown document.
   */
  GetDocument(argument: _docex_document_v1_GetDocumentRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_GetDocumentResponse>): grpc.ClientUnaryCall;
  GetDocument(argument: _docex_document_v1_GetDocumentRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_GetDocumentResponse>): grpc.ClientUnaryCall;
  GetDocument(argument: _docex_document_v1_GetDocumentRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_GetDocumentResponse>): grpc.ClientUnaryCall;
  GetDocument(argument: _docex_document_v1_GetDocumentRequestInput, callback: grpc.requestCallback<_docex_document_v1_GetDocumentResponse>): grpc.ClientUnaryCall;
  /**
   * NOT_FOUND for an unknown document.
   */
  getDocument(argument: _docex_document_v1_GetDocumentRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_GetDocumentResponse>): grpc.ClientUnaryCall;
  getDocument(argument: _docex_document_v1_GetDocumentRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_GetDocumentResponse>): grpc.ClientUnaryCall;
  getDocument(argument: _docex_document_v1_GetDocumentRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_GetDocumentResponse>): grpc.ClientUnaryCall;
  getDocument(argument: _docex_document_v1_GetDocumentRequestInput, callback: grpc.requestCallback<_docex_document_v1_GetDocumentResponse>): grpc.ClientUnaryCall;
  
  /**
   * NOT_FOUND for an unknown queue.
   */
  GetQueue(argument: _docex_document_v1_GetQueueRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_GetQueueResponse>): grpc.ClientUnaryCall;
  GetQueue(argument: _docex_document_v1_GetQueueRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_GetQueueResponse>): grpc.ClientUnaryCall;
  GetQueue(argument: _docex_document_v1_GetQueueRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_GetQueueResponse>): grpc.ClientUnaryCall;
  GetQueue(argument: _docex_document_v1_GetQueueRequestInput, callback: grpc.requestCallback<_docex_document_v1_GetQueueResponse>): grpc.ClientUnaryCall;
  /**
   * NOT_FOUND for an unknown queue.
   */
  getQueue(argument: _docex_document_v1_GetQueueRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_GetQueueResponse>): grpc.ClientUnaryCall;
  getQueue(argument: _docex_document_v1_GetQueueRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_GetQueueResponse>): grpc.ClientUnaryCall;
  getQueue(argument: _docex_document_v1_GetQueueRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_GetQueueResponse>): grpc.ClientUnaryCall;
  getQueue(argument: _docex_document_v1_GetQueueRequestInput, callback: grpc.requestCallback<_docex_document_v1_GetQueueResponse>): grpc.ClientUnaryCall;
  
  /**
   * Finds an entity by UUID or humanized id (documents: UUID only) and names its ancestors.
   * NOT_FOUND when it does not exist, or when organization_id is set and the entity belongs to another organization.
   */
  ResolveEntity(argument: _docex_document_v1_ResolveEntityRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ResolveEntityResponse>): grpc.ClientUnaryCall;
  ResolveEntity(argument: _docex_document_v1_ResolveEntityRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_ResolveEntityResponse>): grpc.ClientUnaryCall;
  ResolveEntity(argument: _docex_document_v1_ResolveEntityRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ResolveEntityResponse>): grpc.ClientUnaryCall;
  ResolveEntity(argument: _docex_document_v1_ResolveEntityRequestInput, callback: grpc.requestCallback<_docex_document_v1_ResolveEntityResponse>): grpc.ClientUnaryCall;
  /**
   * Finds an entity by UUID or humanized id (documents: UUID only) and names its ancestors.
   * NOT_FOUND when it does not exist, or when organization_id is set and the entity belongs to another organization.
   */
  resolveEntity(argument: _docex_document_v1_ResolveEntityRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ResolveEntityResponse>): grpc.ClientUnaryCall;
  resolveEntity(argument: _docex_document_v1_ResolveEntityRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_ResolveEntityResponse>): grpc.ClientUnaryCall;
  resolveEntity(argument: _docex_document_v1_ResolveEntityRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ResolveEntityResponse>): grpc.ClientUnaryCall;
  resolveEntity(argument: _docex_document_v1_ResolveEntityRequestInput, callback: grpc.requestCallback<_docex_document_v1_ResolveEntityResponse>): grpc.ClientUnaryCall;
  
}

/**
 * Documents: workspaces, queues, documents, their annotations, messages and status.
 */
export interface DocumentHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Changes a document on behalf of another context (automation rules, learned values, validation answers).
   * Refusals the caller should expect (stale version, a status move that is not allowed) answer applied = false
   * with a reason; NOT_FOUND for an unknown document, INVALID_ARGUMENT for malformed JSON or an unknown source.
   */
  ApplyDocumentChanges: grpc.handleUnaryCall<_docex_document_v1_ApplyDocumentChangesRequest, _docex_document_v1_ApplyDocumentChangesResponseInput>;
  
  /**
   * NOT_FOUND for an unknown document.
   */
  GetDocument: grpc.handleUnaryCall<_docex_document_v1_GetDocumentRequest, _docex_document_v1_GetDocumentResponseInput>;
  
  /**
   * NOT_FOUND for an unknown queue.
   */
  GetQueue: grpc.handleUnaryCall<_docex_document_v1_GetQueueRequest, _docex_document_v1_GetQueueResponseInput>;
  
  /**
   * Finds an entity by UUID or humanized id (documents: UUID only) and names its ancestors.
   * NOT_FOUND when it does not exist, or when organization_id is set and the entity belongs to another organization.
   */
  ResolveEntity: grpc.handleUnaryCall<_docex_document_v1_ResolveEntityRequest, _docex_document_v1_ResolveEntityResponseInput>;
  
}

export interface DocumentDefinition extends grpc.ServiceDefinition {
  ApplyDocumentChanges: MethodDefinition<_docex_document_v1_ApplyDocumentChangesRequestInput, _docex_document_v1_ApplyDocumentChangesResponseInput, _docex_document_v1_ApplyDocumentChangesRequest, _docex_document_v1_ApplyDocumentChangesResponse>
  GetDocument: MethodDefinition<_docex_document_v1_GetDocumentRequestInput, _docex_document_v1_GetDocumentResponseInput, _docex_document_v1_GetDocumentRequest, _docex_document_v1_GetDocumentResponse>
  GetQueue: MethodDefinition<_docex_document_v1_GetQueueRequestInput, _docex_document_v1_GetQueueResponseInput, _docex_document_v1_GetQueueRequest, _docex_document_v1_GetQueueResponse>
  ResolveEntity: MethodDefinition<_docex_document_v1_ResolveEntityRequestInput, _docex_document_v1_ResolveEntityResponseInput, _docex_document_v1_ResolveEntityRequest, _docex_document_v1_ResolveEntityResponse>
}
